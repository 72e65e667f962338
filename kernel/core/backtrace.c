// SPDX-License-Identifier: BSD-2-Clause
/*
 * Backtraces by walking the frame-pointer chain (the kernel is built with
 * frame pointers). A frame is followed only while it lies inside the
 * current thread's stack and the chain moves up the stack, so a corrupt
 * chain ends the walk instead of faulting.
 */
#include <scion/fault.h>
#include <scion/printk.h>
#include <scion/probe.h>
#include <scion/symtab.h>
#include <scion/thread.h>
#include <scion/cpu.h>
#include <scion/format.h>
#include <arch/trap.h>

#define BACKTRACE_MAX_FRAMES 32

/*
 * A return address may be the first byte after its function (a call to a
 * noreturn function ends it), so look the function up by the byte before.
 */
static const char *format_return_address(uintptr_t ret, char *buf, size_t size)
{
	uint64_t off, origin;

	if (probe_patch_origin(ret - 1, &origin))
		return code_format(ret - 1, buf, size);
	const struct ksym *s = symtab_lookup_addr(&kernel_symtab, ret - 1, &off);
	if (!s)
		snprintf(buf, size, "?");
	else
		snprintf(buf, size, "%s+0x%llx", ksym_name(&kernel_symtab, s),
			 (unsigned long long)off + 1);
	return buf;
}

const char *code_format(uintptr_t pc, char *buf, size_t size)
{
	uint64_t origin;
	char sym[80];

	if (!probe_patch_origin(pc, &origin))
		return ksym_format(pc, buf, size);
	snprintf(buf, size, "%s (in a probe patch)", ksym_format(origin, sym, sizeof(sym)));
	return buf;
}

extern char bsp_boot_stack[], bsp_boot_stack_top[];

static bool frame_ok(uintptr_t fp)
{
	struct thread *t = this_cpu()->current;

	if (fp & 7)
		return false;
	if (!t)	/* before the scheduler: the boot stack */
		return fp >= (uintptr_t)bsp_boot_stack &&
		       fp + ARCH_FRAME_RECORD_SIZE <= (uintptr_t)bsp_boot_stack_top;
	return thread_stack_contains(t, fp, ARCH_FRAME_RECORD_SIZE);
}

unsigned backtrace_print(uintptr_t pc, uintptr_t fp)
{
	char sym[96];
	unsigned n = 0;

	printk("  #%u 0x%016llx %s\n", n++, (unsigned long long)pc,
	       code_format(pc, sym, sizeof(sym)));
	while (n < BACKTRACE_MAX_FRAMES && frame_ok(fp)) {
		uintptr_t ret;
		uintptr_t next = arch_frame_unwind(fp, &ret);
		if (ret == 0)
			break;
		printk("  #%u 0x%016llx %s\n", n++, (unsigned long long)ret,
		       format_return_address(ret, sym, sizeof(sym)));
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}
