/* Stackful coroutines: every simulated kernel thread (dd, flusher) runs its
 * model code as straight-line C that "sleeps" like the kernel does, so the
 * model reads side by side with mm/page-writeback.c and fs/fs-writeback.c. */
#ifndef WBLAB_CORO_H
#define WBLAB_CORO_H
#include <stddef.h>

struct coro {
	void *sp;           /* saved stack pointer */
	void *stack;        /* NULL for the scheduler's own context */
	size_t stack_size;
	void (*fn)(void *);
	void *arg;
	void *asan_fake;    /* AddressSanitizer fiber bookkeeping */
};

/* Prepares co to run fn(arg) on a fresh stack at its first switch. */
int coro_init(struct coro *co, size_t stack_size, void (*fn)(void *), void *arg);
/* Saves the current context in from and resumes to. */
void coro_switch(struct coro *from, struct coro *to);
void coro_free(struct coro *co);

#endif
