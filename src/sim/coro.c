/* x86-64 and aarch64 use a tiny assembly switch (tens of nanoseconds);
 * other machines fall back to ucontext. */
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "coro.h"

#if defined(__SANITIZE_ADDRESS__)
#define CORO_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORO_ASAN 1
#endif
#endif

#ifdef CORO_ASAN
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
				     size_t *size_old);
#endif

static _Thread_local struct coro *coro_starting;
#ifdef CORO_ASAN
/* bounds of the scheduler's own stack, learnt at the first switch away from it */
static _Thread_local const void *asan_main_bottom;
static _Thread_local size_t asan_main_size;
#define ASAN_BOTTOM(c) ((c)->stack ? (c)->stack : asan_main_bottom)
#define ASAN_SIZE(c) ((c)->stack ? (c)->stack_size : asan_main_size)
#endif

static void coro_trampoline(void)
{
	struct coro *co = coro_starting;
#ifdef CORO_ASAN
	const void *b;
	size_t sz;
	__sanitizer_finish_switch_fiber(NULL, &b, &sz);
	if (!asan_main_bottom) {
		asan_main_bottom = b;
		asan_main_size = sz;
	}
#endif
	co->fn(co->arg);
	/* model threads loop forever; the scheduler simply stops resuming them */
	abort();
}

#if defined(__x86_64__)
void wblab_coro_swap(void **save_sp, void *new_sp);
__asm__(".text\n"
	".globl wblab_coro_swap\n"
	".type wblab_coro_swap,@function\n"
	"wblab_coro_swap:\n"
	"  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
	"  movq %rsp, (%rdi)\n"
	"  movq %rsi, %rsp\n"
	"  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
	"  ret\n"
	".size wblab_coro_swap,.-wblab_coro_swap\n"
	".section .note.GNU-stack,\"\",@progbits\n"
	".text\n");

static void *initial_sp(struct coro *co)
{
	uintptr_t top = ((uintptr_t)co->stack + co->stack_size) & ~(uintptr_t)15;
	void **sp = (void **)top;
	*--sp = NULL;                         /* alignment slot: entry sees rsp % 16 == 8 */
	*--sp = (void *)coro_trampoline;      /* return address of the first swap */
	for (int i = 0; i < 6; i++)
		*--sp = NULL;                 /* rbp rbx r12 r13 r14 r15 */
	return sp;
}
#define CORO_ASM 1
#elif defined(__aarch64__)
void wblab_coro_swap(void **save_sp, void *new_sp);
__asm__(".text\n"
	".globl wblab_coro_swap\n"
	".type wblab_coro_swap,%function\n"
	"wblab_coro_swap:\n"
	"  sub sp, sp, #176\n"
	"  stp x19, x20, [sp, #0]\n  stp x21, x22, [sp, #16]\n  stp x23, x24, [sp, #32]\n"
	"  stp x25, x26, [sp, #48]\n  stp x27, x28, [sp, #64]\n  stp x29, x30, [sp, #80]\n"
	"  stp d8, d9, [sp, #96]\n  stp d10, d11, [sp, #112]\n  stp d12, d13, [sp, #128]\n"
	"  stp d14, d15, [sp, #144]\n"
	"  mov x9, sp\n  str x9, [x0]\n  mov sp, x1\n"
	"  ldp x19, x20, [sp, #0]\n  ldp x21, x22, [sp, #16]\n  ldp x23, x24, [sp, #32]\n"
	"  ldp x25, x26, [sp, #48]\n  ldp x27, x28, [sp, #64]\n  ldp x29, x30, [sp, #80]\n"
	"  ldp d8, d9, [sp, #96]\n  ldp d10, d11, [sp, #112]\n  ldp d12, d13, [sp, #128]\n"
	"  ldp d14, d15, [sp, #144]\n"
	"  add sp, sp, #176\n  ret\n"
	".size wblab_coro_swap,.-wblab_coro_swap\n"
	".section .note.GNU-stack,\"\",%progbits\n"
	".text\n");

static void *initial_sp(struct coro *co)
{
	uintptr_t top = ((uintptr_t)co->stack + co->stack_size) & ~(uintptr_t)15;
	void **sp = (void **)(top - 176);
	for (int i = 0; i < 22; i++)
		sp[i] = NULL;
	sp[11] = (void *)coro_trampoline;     /* x30 = lr */
	return sp;
}
#define CORO_ASM 1
#else
#include <ucontext.h>
#endif

int coro_init(struct coro *co, size_t stack_size, void (*fn)(void *), void *arg)
{
	co->stack_size = stack_size;
	co->stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (co->stack == MAP_FAILED) {
		co->stack = NULL;
		return -1;
	}
#ifdef CORO_ASAN
	/* a new mapping can land where an old stack left poisoned shadow */
	__asan_unpoison_memory_region(co->stack, stack_size);
#endif
	co->fn = fn;
	co->arg = arg;
	co->asan_fake = NULL;
#ifdef CORO_ASM
	co->sp = initial_sp(co);
#else
	ucontext_t *uc = calloc(1, sizeof(*uc));
	if (!uc)
		return -1;
	getcontext(uc);
	uc->uc_stack.ss_sp = co->stack;
	uc->uc_stack.ss_size = stack_size;
	uc->uc_link = NULL;
	makecontext(uc, coro_trampoline, 0);
	co->sp = uc;
#endif
	return 0;
}

static void do_switch(struct coro *from, struct coro *to)
{
	if (to->stack && to->fn)
		coro_starting = to;
#ifdef CORO_ASM
	wblab_coro_swap(&from->sp, to->sp);
#else
	if (!from->sp)
		from->sp = calloc(1, sizeof(ucontext_t));
	swapcontext((ucontext_t *)from->sp, (ucontext_t *)to->sp);
#endif
}

void coro_switch(struct coro *from, struct coro *to)
{
#ifdef CORO_ASAN
	__sanitizer_start_switch_fiber(&from->asan_fake, ASAN_BOTTOM(to), ASAN_SIZE(to));
#endif
	do_switch(from, to);
#ifdef CORO_ASAN
	__sanitizer_finish_switch_fiber(from->asan_fake, NULL, NULL);
#endif
}

void coro_free(struct coro *co)
{
	if (co->stack) {
#ifdef CORO_ASAN
		__asan_unpoison_memory_region(co->stack, co->stack_size);
#endif
		munmap(co->stack, co->stack_size);
	}
#ifndef CORO_ASM
	free(co->sp);
#endif
	co->stack = NULL;
}
