#include "rpl/low.h"

int tool_value(void)
{
    return low_value() + 2;
}
