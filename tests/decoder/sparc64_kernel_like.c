// SPDX-License-Identifier: BSD-2-Clause
/*
 * Kernel-like C for the SPARC V9 decoder's objdump oracle: compiled with
 * the cross compiler and the sparc64 kernel's flags (freestanding,
 * medlow, no FPU), so the oracle sees the code GCC writes for a kernel
 * (windows, leaf functions, tail calls, jump tables, atomics, 64-bit
 * arithmetic) and, through inline assembly, the privileged and
 * UltraSPARC instructions a sparc64 kernel uses that userspace libraries
 * never hold: trap returns, privileged and ASI registers, window
 * bookkeeping, MMU ASIs, block moves, Tcc. Never run, only decoded.
 */
#include <stdint.h>
#include <stddef.h>

struct list { struct list *next, *prev; uint64_t key; };

uint64_t counter;
struct list head;

__attribute__((noinline)) uint64_t leaf_sum(const uint64_t *v, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += v[i] * 3 + (v[i] >> 7);
	return s;
}

int dispatch(int op, int a, int b)
{
	switch (op) {
	case 0: return a + b;
	case 1: return a - b;
	case 2: return a * b;
	case 3: return b ? a / b : 0;
	case 4: return a & b;
	case 5: return a | b;
	case 6: return a ^ b;
	case 7: return a << (b & 31);
	case 8: return a >> (b & 31);
	default: return -1;
	}
}

struct list *find(uint64_t key)
{
	for (struct list *l = head.next; l && l != &head; l = l->next)
		if (l->key == key)
			return l;
	return NULL;
}

uint64_t walk(uint64_t key, const uint64_t *v, size_t n)
{
	struct list *l = find(key);
	uint64_t s = leaf_sum(v, n);
	__atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST);
	uint32_t w = (uint32_t)s;
	__atomic_compare_exchange_n(&w, &w, 5, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return l ? s + l->key + w : s / (key | 1) + (uint64_t)((int64_t)s % 7);
}

unsigned long privileged(unsigned long x)
{
	unsigned long pstate, tick, tl, v;
	__asm__ volatile("rdpr %%pstate, %0" : "=r"(pstate));
	__asm__ volatile("wrpr %0, 2, %%pstate" : : "r"(pstate));
	__asm__ volatile("rdpr %%tl, %0" : "=r"(tl));
	__asm__ volatile("rd %%tick, %0" : "=r"(tick));
	__asm__ volatile("wr %0, 0, %%tick_cmpr" : : "r"(tick + 1000));
	__asm__ volatile("rdpr %%tba, %0" : "=r"(v));
	__asm__ volatile("wrpr %0, %%tba" : : "r"(v));
	__asm__ volatile("rdpr %%cwp, %0; wrpr %0, %%cwp" : "=r"(v));
	__asm__ volatile("rdpr %%cansave, %0; rdpr %%canrestore, %0; rdpr %%otherwin, %0" : "=r"(v));
	__asm__ volatile("wrpr %%g0, 0, %%otherwin; wrpr %%g0, 6, %%cansave; wrpr %%g0, 0, %%canrestore"
			 ::: "memory");
	__asm__ volatile("rdpr %%tpc, %0; rdpr %%tnpc, %0; rdpr %%tstate, %0; rdpr %%tt, %0"
			 : "=r"(v));
	__asm__ volatile("ldxa [%1] 0x58, %0" : "=r"(v) : "r"(x));
	__asm__ volatile("stxa %0, [%1] 0x58; membar #Sync" : : "r"(v), "r"(x) : "memory");
	__asm__ volatile("stxa %%g0, [%0] 0x57; flush %%g6" : : "r"(x) : "memory");
	__asm__ volatile("ldxa [%1] 0x14, %0" : "=r"(v) : "r"(x));
	__asm__ volatile("stba %0, [%1] 0x15" : : "r"(v), "r"(x) : "memory");
	__asm__ volatile("lduwa [%1] 0x15, %0" : "=r"(v) : "r"(x));
	__asm__ volatile("wr %%g0, 0x82, %%asi; ldxa [%1 + 8] %%asi, %0" : "=r"(v) : "r"(x));
	__asm__ volatile("casxa [%1] 0x04, %2, %0" : "+r"(v) : "r"(x), "r"(tl) : "memory");
	__asm__ volatile("membar #StoreLoad | #LoadLoad; membar #MemIssue; stbar" ::: "memory");
	__asm__ volatile("flushw; saved; restored" ::: "memory");
	__asm__ volatile("ta 0x6d; tne %%xcc, 5; tcc %%icc, %0 + 3" : : "r"(v));
	__asm__ volatile("wr %%g0, 4, %%fprs; rd %%fprs, %0; rd %%ccr, %0; wr %0, 0, %%ccr" : "=r"(v));
	__asm__ volatile("rd %%asi, %0; rd %%pc, %0; rd %%y, %0; wr %0, %%y" : "=r"(v));
	__asm__ volatile("ldda [%0] 0xf0, %%f0; stda %%f0, [%0] 0xf0; ldda [%0] 0x70, %%f16" : : "r"(x)
			 : "memory");
	__asm__ volatile("prefetch [%0], 1; prefetcha [%0] 0x80, 2" : : "r"(x));
	__asm__ volatile("popc %1, %0; sdivx %0, %1, %0; udivx %0, %1, %0; mulx %0, %0, %0" : "=r"(v)
			 : "r"(x));
	__asm__ volatile("ldstub [%1], %0; swap [%1], %0; casa [%1] 0x80, %0, %0" : "+r"(v) : "r"(x)
			 : "memory");
	__asm__ volatile("movrz %1, 5, %0; movne %%xcc, %1, %0; movrgez %1, %1, %0" : "+r"(v) : "r"(x));
	__asm__ volatile("brgz,a,pt %0, 1f; nop; bvs,pn %%xcc, 1f; nop; bpos,a 1f; nop; 1: nop" : : "r"(v));
	__asm__ volatile("sethi %%hi(0x12345400), %0; or %0, %%lo(0x12345678), %0" : "=r"(v));
	__asm__ volatile("rdpr %%pil, %0; wrpr %0, 0, %%pil; wrpr %%g0, 15, %%pil" : "=r"(v));
	__asm__ volatile("rdpr %%wstate, %0; wrpr %0, %%wstate; rdpr %%cleanwin, %0; wrpr %0, %%cleanwin"
			 : "=r"(v));
	__asm__ volatile("rdpr %%tl, %0; wrpr %0, 1, %%tl; rdpr %%ver, %0" : "=r"(v));
	__asm__ volatile("rd %%softint, %0; wr %0, 0, %%set_softint; wr %0, 0, %%clear_softint" : "=r"(v));
	__asm__ volatile("rd %%stick, %0; wr %0, 0, %%stick_cmpr; rd %%stick_cmpr, %0; rd %%tick_cmpr, %0"
			 : "=r"(v));
	__asm__ volatile("rd %%gsr, %0; wr %0, 0, %%gsr; rd %%pic, %0; wr %0, 0, %%pcr; rd %%pcr, %0"
			 : "=r"(v));
	__asm__ volatile("ldda [%1] 0x24, %0; stda %0, [%1] 0x80" : "=r"(v) : "r"(x) : "memory");
	__asm__ volatile("ldxa [%%g0] 0x4c, %0; stxa %0, [%%g0] 0x4c; ldxa [%1] 0x50, %0" : "=r"(v)
			 : "r"(x));
	__asm__ volatile("wrpr %%g0, 0x14, %%pstate; wrpr %0, 0, %%tstate; wrpr %0, 0, %%tpc; "
			 "wrpr %0, 0, %%tnpc; wrpr %0, 0, %%tt" : : "r"(v));
	__asm__ volatile("ta %%xcc, 0x10; illtrap 0x1234; sir 0" : : : "memory");
	return pstate + tick + tl + v;
}

void __attribute__((noreturn)) trap_return(int retry_it)
{
	if (retry_it)
		__asm__ volatile("retry");
	__asm__ volatile("done");
	__builtin_unreachable();
}

void __attribute__((noreturn)) die(void)
{
	__builtin_trap();
}

uint64_t tail(uint64_t key)
{
	return (uint64_t)find(key ^ 0x5a5a5a5a5a5aull);
}
