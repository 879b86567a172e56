#include "rpl/high.h"
#include "rpl/side.h"

int side_value(void)
{
    return high_value() + 1;
}
