// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the fault-tolerant read tracing uses
 * (arch/safe_read.h): kernel data and text read back exactly; NULL, an
 * unmapped page, a thread stack's guard page and a non-canonical
 * address come back as -EFAULT with no fault reported, from thread
 * context and with interrupts masked (as in probe context); a read that
 * starts mapped and runs into an unmapped page fails too.
 */
#include <scion/ktest.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/mm.h>
#include <arch/safe_read.h>
#include <arch/cpu.h>

static const char text[] = "read me through the safe path";

KTEST(safe_read_good_and_bad_addresses, 1)
{
	char buf[64];
	uint8_t code[8];

	memset(buf, 0, sizeof(buf));
	KT_EXPECT(t, arch_safe_read(buf, (uint64_t)(uintptr_t)text, sizeof(text)) == 0 &&
		  !memcmp(buf, text, sizeof(text)), "kernel data did not read back");
	KT_EXPECT(t, arch_safe_read(code, (uint64_t)(uintptr_t)arch_safe_read, sizeof(code)) == 0 &&
		  !memcmp(code, (const void *)(uintptr_t)arch_safe_read, sizeof(code)),
		  "kernel text did not read back");
	KT_EXPECT(t, arch_safe_read(buf, 0, 8) == -EFAULT, "NULL read");
	KT_EXPECT(t, arch_safe_read(buf, 0x8000000000000000ull, 8) == -EFAULT,
		  "a non-canonical address read");
	KT_EXPECT(t, arch_safe_read(buf, 0x1000, 0) == 0, "a read of 0 bytes failed");

	/*
	 * A stack slot: an unmapped guard page below the stack, and nothing
	 * mapped above a small one. A read that starts mapped and runs into
	 * the unmapped page fails, keeping the bytes it read.
	 */
	size_t size = 4 * PAGE_SIZE;
	uintptr_t base = vmap_stack_alloc(size);
	KT_ASSERT(t, base, "no stack area");
	uint8_t *top = (uint8_t *)(base + size);
	KT_ASSERT(t, vmap_is_guard(base - 1) && vmap_is_guard((uintptr_t)top),
		  "the pages around a small stack are mapped; this test needs them unmapped");
	memset(top - PAGE_SIZE, 0x5a, PAGE_SIZE);
	memset(buf, 0, sizeof(buf));
	KT_EXPECT(t, arch_safe_read(buf, (uint64_t)(uintptr_t)(top - 4), 8) == -EFAULT &&
		  buf[0] == 0x5a && buf[3] == 0x5a && buf[4] == 0, "a read across into an unmapped page");
	KT_EXPECT(t, arch_safe_read(buf, base - 8, 8) == -EFAULT, "the guard page read");
	KT_EXPECT(t, arch_safe_read(buf, base, 8) == 0, "the stack's first bytes did not read");
	irqflags_t f = arch_irq_save();
	int masked = arch_safe_read(buf, 0x10, 8);
	arch_irq_restore(f);
	KT_EXPECT(t, masked == -EFAULT, "with interrupts masked: %d", masked);
	vmap_stack_free(base, size);
}
