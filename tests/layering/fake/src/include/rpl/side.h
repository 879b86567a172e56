#ifndef FAKE_SIDE_H
#define FAKE_SIDE_H
int side_value(void);
#endif
