// SPDX-License-Identifier: BSD-2-Clause
/*
 * Machine features the sparc64 port does not have yet, each refused with
 * its one-line reason (issue 25) rather than pretended: device
 * interrupts and MSI (the sabre bridge's interrupt mapping is not
 * programmed), and the SFI sandbox (no SPARC verifier: grafts load
 * trusted or not at all; the graft loader refuses a sandboxed load
 * first, with arch/features.h's line, so these hooks are never reached).
 * Invariants: no state besides the once-only messages.
 */
#include <arch/irq.h>
#include <arch/sfi.h>
#include <scion/errno.h>
#include <scion/features.h>
#include <scion/printk.h>
#include <scion/string.h>

#define NO_IRQS "sparc64: no device interrupts yet (issue 25)"

int irq_attach_isa(unsigned isa_irq, irq_handler_t fn, void *arg, const char *name)
{
	(void)isa_irq; (void)fn; (void)arg;
	printk("irq: %s: %s\n", name, NO_IRQS);
	return -ENOTSUP;
}

int arch_irq_alloc_vector(irq_handler_t fn, void *arg, const char *name)
{
	(void)fn; (void)arg;
	printk("irq: %s: %s\n", name, NO_IRQS);
	return -ENOTSUP;
}

int arch_msi_message(unsigned vector, unsigned cpu_index, uint64_t *addr, uint32_t *data)
{
	(void)vector; (void)cpu_index; (void)addr; (void)data;
	return -ENOTSUP;
}

/* The graft loader refuses a sandboxed load before reaching these (FEATURE_SANDBOX). */
#define NO_SFI machine_lacks_reason(FEATURE_SANDBOX)

uint64_t arch_sfi_text_size(uint64_t bytes)
{
	return bytes;
}

void arch_sfi_text_init(uint8_t *text, uint64_t text_addr, uint64_t size, uint64_t exit_gate)
{
	(void)text; (void)text_addr; (void)size; (void)exit_gate;
}

int arch_sfi_create(struct arch_sfi *s, uint64_t text, uint64_t text_size, uint64_t data,
		    uint64_t data_size, char *err, size_t errlen)
{
	(void)text; (void)text_size; (void)data; (void)data_size;
	memset(s, 0, sizeof(*s));
	strlcpy(err, NO_SFI, errlen);
	return -ENOTSUP;
}

void arch_sfi_destroy(struct arch_sfi *s)
{
	(void)s;
}

unsigned arch_sfi_windows_in_use(void)
{
	return 0;
}

bool arch_sfi_owns_stack(const struct arch_sfi *s, uint64_t a, uint64_t len)
{
	(void)s; (void)a; (void)len;
	return false;
}

uint64_t arch_sfi_call(struct arch_txn_jmp *jmp, uint64_t fn, const uint64_t args[6],
		       uint64_t window, uint64_t exit_stub)
{
	(void)jmp; (void)fn; (void)args; (void)window; (void)exit_stub;
	panic("%s", NO_SFI);
}

/* Never a target: no sandbox exists to exit from. */
char arch_sfi_exit[4] __attribute__((aligned(4)));

int sfi_verify(const uint8_t *code, const struct sfi_layout *layout, uint8_t *marks,
	       char err[SFI_ERR_MAX])
{
	(void)code; (void)layout; (void)marks;
	strlcpy(err, NO_SFI, SFI_ERR_MAX);
	return -ENOTSUP;
}

bool arch_sfi_entry_overflow(const struct arch_sfi *s, const struct trap_frame *f)
{
	(void)s; (void)f;
	return false;
}
