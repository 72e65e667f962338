// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of the fault-tolerant read tracing uses
 * (arch/safe_read.h): kernel data and text read back exactly; NULL, an
 * unmapped page, a thread stack's guard page and a non-canonical
 * address come back as -EFAULT with no fault reported, from thread
 * context and with interrupts masked (as in probe context); a read that
 * starts mapped and runs into an unmapped page fails too. Trace loads
 * and string copies (the kernel's DIF environment) refuse device memory
 * (arch_trace_readable): the local APIC's page is an invalid address
 * while kernel data still reads; the firing probe's own names are
 * copied directly and still cut at the size asked.
 */
#include <scion/ktest.h>
#include <scion/errno.h>
#include <scion/string.h>
#include <scion/mm.h>
#include <arch/safe_read.h>
#include <arch/cpu.h>
#include <arch/mmu.h>
#include "../../kernel/trace/trace_internal.h"

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

/* The MMIO page mapping the local APIC (QEMU's 0xfee00000), or 0 when none does. */
static uint64_t lapic_page(void)
{
	for (uint64_t va = MMIO_BASE; va < MMIO_LIMIT; va += PAGE_SIZE) {
		uint64_t pa = arch_translate((uintptr_t)va, NULL);
		if (pa == UINT64_MAX)
			return 0;	/* mmio_map hands out the window from its start */
		if (pa == 0xfee00000ull)
			return va;
	}
	return 0;
}

/* `return *(uint32_t *)addr` as a trace program, run through the kernel's DIF environment. */
static int trace_load32(uint64_t addr, uint64_t *value, struct dif_fault *fault)
{
	const struct dif_insn insns[] = {
		{ DIF_OP_LDC, 1, 0, 0, 0 },
		{ DIF_OP_LDUW, 2, 1, 0, 0 },
		{ DIF_OP_RET, 0, 2, 0, 0 },
	};
	const struct dif_prog p = { .insns = insns, .ninsns = 3, .ints = &addr, .nints = 1,
				    .rtype = DIF_TYPE_INT, .strsize = 16 };
	char why[120];
	if (dif_verify(&p, why, sizeof(why)))
		return -1;
	return dif_run(&p, &trace_env_ops, NULL, value, fault);
}

KTEST_NEEDS(trace_reads_refuse_device_memory, 1, FEATURE_MMIO_DEVICES)
{
	static const uint32_t known = 0x5ca1ab1e;
	uint64_t lapic = lapic_page();
	KT_ASSERT(t, lapic, "no MMIO page maps the local APIC at 0xfee00000");

	/* The hook itself: device memory refused, kernel data and unmapped addresses not. */
	KT_EXPECT(t, !arch_trace_readable(lapic + 0x20, 4), "the local APIC's ID register");
	KT_EXPECT(t, !arch_trace_readable(MMIO_BASE - 4, 8), "a range running into the MMIO window");
	KT_EXPECT(t, !arch_trace_readable((uint64_t)(uintptr_t)phys_to_virt(0xb8000), 2),
		  "VGA text memory in the direct map");
	KT_EXPECT(t, !arch_trace_readable(UINT64_MAX - 3, 8), "a range that wraps");
	KT_EXPECT(t, arch_trace_readable((uint64_t)(uintptr_t)&known, sizeof(known)),
		  "kernel data refused");
	KT_EXPECT(t, arch_trace_readable((uint64_t)(uintptr_t)phys_to_virt(0x1000), 8),
		  "low RAM in the direct map refused");
	KT_EXPECT(t, arch_trace_readable(0x10000, 8), "an unmapped address refused (not device memory)");

	/* The trace load path: the LAPIC read is an invalid address, before any read. */
	uint64_t v = 0;
	struct dif_fault fault;
	int rc = trace_load32(lapic + 0x20, &v, &fault);
	KT_EXPECT(t, rc == -1 && fault.kind == DIF_FAULT_BADADDR && fault.addr == lapic + 0x20 &&
		  fault.pc == 1, "LAPIC load: rc %d, %s at %llx (pc %u)", rc,
		  dif_fault_name(fault.kind), (unsigned long long)fault.addr, fault.pc);
	rc = trace_load32((uint64_t)(uintptr_t)&known, &v, &fault);
	KT_EXPECT(t, rc == 0 && v == known, "kernel data load: rc %d, %llx", rc,
		  (unsigned long long)v);

	/* String copies go through the same check. */
	char buf[16];
	struct probe p = { .provider = "fbt", .module = "kernel", .function = "f",
			   .name = "entry" };
	struct probe_hit hit = { .probe = &p, .addr = 0, .regs = NULL };
	struct trace_firing x = { .hit = &hit };
	KT_EXPECT(t, trace_copy_string(&x, buf, lapic, sizeof(buf)) == -EFAULT,
		  "a string copy from the local APIC");
	KT_EXPECT(t, trace_copy_string(&x, buf, (uint64_t)(uintptr_t)text, sizeof(buf)) == 15 &&
		  !memcmp(buf, text, 15), "a string copy from kernel data");
}

/*
 * The firing probe's names are copied without the load path's checks
 * (env.c): whole, cut at max with their NUL, and only those addresses
 * (a probe with no module name does not make address 0 one of them).
 */
KTEST(trace_copy_string_probe_names, 1)
{
	struct probe p = { .provider = "fbt", .module = NULL, .function = "pf_sum",
			   .name = "entry" };
	struct probe_hit hit = { .probe = &p, .addr = 0, .regs = NULL };
	struct trace_firing x = { .hit = &hit };
	char buf[16];

	memset(buf, 'x', sizeof(buf));
	uint64_t function = (uintptr_t)p.function;
	KT_EXPECT(t, trace_copy_string(&x, buf, function, sizeof(buf)) == 6 &&
		  !strcmp(buf, "pf_sum"), "probefunc copied as %.16s", buf);
	memset(buf, 'x', sizeof(buf));
	KT_EXPECT(t, trace_copy_string(&x, buf, function, 4) == 3 &&
		  !memcmp(buf, "pf_\0x", 5), "probefunc cut at 4 bytes: %.5s", buf);
	KT_EXPECT(t, trace_copy_string(&x, buf, (uint64_t)(uintptr_t)p.name, sizeof(buf)) == 5 &&
		  !strcmp(buf, "entry"), "probename copied as %.16s", buf);
	KT_EXPECT(t, trace_copy_string(&x, buf, (uint64_t)(uintptr_t)p.provider, 1) == 0 &&
		  buf[0] == '\0', "a copy of at most 1 byte is the NUL alone");
	KT_EXPECT(t, trace_copy_string(&x, buf, 0, sizeof(buf)) == -EFAULT,
		  "address 0 copied as a probe name");
	KT_EXPECT(t, trace_copy_string(&x, buf, (uint64_t)(uintptr_t)text, sizeof(buf)) == 15 &&
		  !memcmp(buf, text, 15), "a string that is not a probe name");
}

/*
 * A trace load reads memory in the machine's own byte order: the value a
 * C load sees, on little- and big-endian machines alike (and a load that
 * does not read is a fault, not a value).
 */
KTEST(trace_load_native_byte_order, 1)
{
	static const uint32_t word = 0x11223344;
	uint64_t v = 0;
	struct dif_fault fault;

	int rc = trace_load32((uint64_t)(uintptr_t)&word, &v, &fault);
	KT_EXPECT(t, rc == 0 && v == word, "load of 0x%x gave rc %d, 0x%llx", word, rc,
		  (unsigned long long)v);
	rc = trace_load32(0x10, &v, &fault);
	KT_EXPECT(t, rc == -1, "a load from an unmapped address gave rc %d", rc);
}
