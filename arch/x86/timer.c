// SPDX-License-Identifier: BSD-2-Clause
/*
 * Time sources: the PIT is the reference, used once at boot to measure
 * the TSC frequency and the local APIC timer's rate; then the TSC is the
 * clock and each CPU's APIC timer drives its scheduler tick. The legacy
 * PIC is remapped away from the exception vectors and masked.
 */
#include <scion/printk.h>
#include <scion/clock.h>
#include <arch/timer.h>
#include <arch/x86.h>
#include "x86_internal.h"
#include "vectors.h"

#define PIT_HZ            1193182u
#define PIT_CH2_DATA      0x42
#define PIT_COMMAND       0x43
#define PIT_CH2_ONESHOT   0xb0	/* channel 2, lobyte/hibyte, mode 0, binary */
#define PORT_B            0x61
#define PORT_B_GATE2      0x01
#define PORT_B_SPEAKER    0x02
#define PORT_B_OUT2       0x20
#define CALIBRATION_MS    5
#define CALIBRATION_RUNS  3

#define PIC1_CMD 0x20
#define PIC1_DATA 0x21
#define PIC2_CMD 0xa0
#define PIC2_DATA 0xa1
#define PIC_ICW1_INIT_ICW4 0x11
#define PIC_ICW4_8086 0x01

uint64_t x86_tsc_hz;		/* arch/timer.h */
static uint64_t lapic_ticks_per_second;	/* at divide-by-16 */

__init void pic_disable(void)
{
	outb(PIC1_CMD, PIC_ICW1_INIT_ICW4);
	outb(PIC2_CMD, PIC_ICW1_INIT_ICW4);
	outb(PIC1_DATA, VEC_PIC_BASE);
	outb(PIC2_DATA, VEC_PIC_BASE + 8);
	outb(PIC1_DATA, 4);	/* slave on line 2 */
	outb(PIC2_DATA, 2);
	outb(PIC1_DATA, PIC_ICW4_8086);
	outb(PIC2_DATA, PIC_ICW4_8086);
	outb(PIC1_DATA, 0xff);
	outb(PIC2_DATA, 0xff);
}

/* Measure TSC cycles and APIC timer counts over one PIT interval. */
static void measure_once(uint64_t *tsc_delta, uint32_t *lapic_delta)
{
	uint16_t count = (uint16_t)(PIT_HZ * CALIBRATION_MS / 1000);
	uint8_t b = (uint8_t)((inb(PORT_B) & ~PORT_B_SPEAKER) & ~PORT_B_GATE2);

	outb(PORT_B, b);
	outb(PIT_COMMAND, PIT_CH2_ONESHOT);
	outb(PIT_CH2_DATA, count & 0xff);
	outb(PIT_CH2_DATA, count >> 8);
	lapic_timer_oneshot_max();
	uint32_t l0 = lapic_timer_current();
	uint64_t t0 = rdtsc();
	outb(PORT_B, b | PORT_B_GATE2);	/* the count starts on the gate's rising edge */
	while (!(inb(PORT_B) & PORT_B_OUT2))
		;
	uint64_t t1 = rdtsc();
	uint32_t l1 = lapic_timer_current();
	*tsc_delta = t1 - t0;
	*lapic_delta = l0 - l1;
}

__init void timer_calibrate(void)
{
	uint64_t best_tsc = UINT64_MAX;
	uint32_t best_lapic = UINT32_MAX;

	/* The shortest run is the one least disturbed (e.g. by the host). */
	for (int i = 0; i < CALIBRATION_RUNS; i++) {
		uint64_t t;
		uint32_t l;
		measure_once(&t, &l);
		if (t < best_tsc)
			best_tsc = t;
		if (l < best_lapic)
			best_lapic = l;
	}
	x86_tsc_hz = best_tsc * 1000 / CALIBRATION_MS;
	lapic_ticks_per_second = (uint64_t)best_lapic * 1000 / CALIBRATION_MS;
	printk("timer: TSC %llu.%03llu MHz, APIC timer %llu kHz (divide 16)\n",
	       (unsigned long long)(x86_tsc_hz / 1000000),
	       (unsigned long long)(x86_tsc_hz / 1000 % 1000),
	       (unsigned long long)(lapic_ticks_per_second / 1000));
}

void arch_timer_start(unsigned hz)
{
	uint64_t count = lapic_ticks_per_second / hz;
	lapic_timer_periodic(VEC_LAPIC_TIMER, count ? (uint32_t)count : 1);
}

void arch_udelay(uint64_t us)
{
	uint64_t end = rdtsc() + x86_tsc_hz / 1000000 * us;
	while (rdtsc() < end)
		__asm__ __volatile__("pause");
}
