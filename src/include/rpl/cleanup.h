/*
 * Process-wide cleanup registry and interrupt handling.
 *
 * Anything temporary that must not outlive the process (scratch trees,
 * temporary files, a half-made optimization branch) is registered here: as a
 * path removed recursively, or as a callback.  Entries run newest first, on
 * rpl_cleanup_run_all(), on exit() (an atexit handler installed with the
 * first registration) and after SIGINT, SIGTERM or SIGHUP once the program
 * reaches rpl_cleanup_exit_if_interrupted().  The owner may also run or drop
 * one entry itself when it is done with it.
 *
 * Interrupts.  rpl_cleanup_install_signals() installs handlers that do one
 * async-signal-safe thing: store the signal number in a sig_atomic_t flag.
 * Nothing is removed inside the handler (removing a tree needs opendir and
 * malloc, which are not async-signal-safe).  A long-running loop checks the
 * flag between steps:
 *
 *     for (each candidate) {
 *         if ((rc = rpl_interrupt_check()) < 0)   // "interrupted by SIGINT"
 *             break;                              // unwind as for any error
 *         ...one step...
 *     }
 *
 * and the command, after unwinding, calls rpl_cleanup_exit_if_interrupted(),
 * which runs every entry and re-raises the signal with its default action,
 * so the parent shell sees a death by SIGINT (status 130), as it expects.
 * The handlers are installed with SA_RESETHAND: a second Ctrl-C while the
 * program is still unwinding kills it at once (what is registered then
 * stays).  SA_RESTART is set, so an interrupted read or write is resumed
 * rather than failing with EINTR.  A child started with rpl_spawn_run gets a
 * terminal's Ctrl-C itself (same process group) and ends, which returns
 * control to the loop; a signal sent to this process alone (kill PID) is
 * seen when the running child ends or reaches its time limit.  Signals the
 * parent set to be ignored (nohup, `cmd &` in a script) stay ignored.
 *
 * Entries belong to the process that registered them: a child made with
 * fork() that exits does not run its parent's entries.  All functions are
 * thread-safe; callbacks run without the registry's lock held, so a
 * callback may call rpl_cleanup_unregister().
 */
#ifndef RPL_CLEANUP_H
#define RPL_CLEANUP_H

typedef void (*rpl_cleanup_fn)(void *arg);

/* Names one registered entry; 0 is never a valid id. */
typedef unsigned long rpl_cleanup_id;

/* Remove `path` (a file or a directory tree; symbolic links are not followed) at cleanup. */
int rpl_cleanup_register_path(const char *path, rpl_cleanup_id *out);

/* Call fn(arg) at cleanup.  `arg` must stay valid until the entry runs or is unregistered. */
int rpl_cleanup_register_fn(rpl_cleanup_fn fn, void *arg, rpl_cleanup_id *out);

/* Forget an entry without running it (the owner keeps or removed the thing); 0 is a no-op. */
void rpl_cleanup_unregister(rpl_cleanup_id id);

/*
 * Run one entry now and forget it.  For a path, returns the status of its
 * removal; for a callback, 0.  An id that is not registered (0, or already
 * run) is a no-op returning 0.
 */
int rpl_cleanup_run(rpl_cleanup_id id);

/* Run every entry this process registered, newest first, and forget them. */
void rpl_cleanup_run_all(void);

/* Install the SIGINT, SIGTERM and SIGHUP handlers described above (idempotent). */
int rpl_cleanup_install_signals(void);

/* The signal that interrupted the process (SIGINT, SIGTERM or SIGHUP), or 0. */
int rpl_interrupted(void);

/* 0, or RPL_ERROR with the message "interrupted by SIGINT" (etc.) once a signal came. */
int rpl_interrupt_check(void);

/*
 * When a signal came: run every entry, then end the process by the same
 * signal (default action).  Returns only when no signal came.
 */
void rpl_cleanup_exit_if_interrupted(void);

#endif
