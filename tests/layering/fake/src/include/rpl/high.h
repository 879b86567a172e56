#ifndef FAKE_HIGH_H
#define FAKE_HIGH_H
#include "rpl/low.h"
int high_value(void);
#endif
