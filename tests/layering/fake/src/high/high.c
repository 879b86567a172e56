#include "rpl/high.h"

int high_value(void)
{
    return low_value() + 1;
}
