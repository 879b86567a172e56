/* Process-wide settings for a program built on the library (the rocm-perf command). */
#ifndef RPL_PROCESS_H
#define RPL_PROCESS_H

/*
 * Call once at the start: large allocations stay mapped on their own (freed
 * memory goes back to the system), and a file-size limit makes a write fail
 * with EFBIG (an error the caller reports) instead of killing the process.
 */
void rpl_process_init(void);

#endif
