#ifndef FAKE_LOW_H
#define FAKE_LOW_H
int low_value(void);
#endif
