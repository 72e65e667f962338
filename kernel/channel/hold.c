// SPDX-License-Identifier: BSD-2-Clause
/*
 * Holding the control channel while something is measured
 * (scion/channel.h: channel_hold). The channel has two threads of its
 * own: the channel thread, which wakes every CHAN_IDLE_RESET_MS to reset
 * a receiver left mid-frame, and the output thread (stream.c), which
 * wakes every switch interval and event poll. Under QEMU's -icount a
 * wakeup in the middle of a benchmark is counted as the benchmark's
 * instructions, and a scheduler graft is invoked for it; so a holder
 * parks both: each sleeps with no timeout while channel.held is set
 * (the channel thread still wakes for a byte from the host, which a
 * host waiting for a benchmark's figures does not send).
 *
 * One holder at a time (hold_lock). channel.held is written by the
 * holder and read by the two threads under their own queue's lock;
 * each notes that it is parked under that lock, so the holder's look at
 * the note sees a thread that is asleep, not one about to sleep.
 *
 * Lock order: hold_lock (a leaf) ; a queue's lock is taken alone.
 */
#include <scion/channel.h>
#include <scion/thread.h>
#include <scion/sched.h>
#include <scion/spinlock.h>
#include <scion/clock.h>
#include <scion/printk.h>
#include "channel_internal.h"

#define HOLD_WAIT_MS 5000	/* a request the channel thread is running may end first */

static struct spinlock hold_lock = SPINLOCK_INIT("channel-hold");
static struct thread *holder;		/* hold_lock */

static bool rx_parked(void)
{
	if (thread_current() == channel.thread)
		return true;	/* the channel thread holding it: it is not in the way */
	irqflags_t f = spin_lock_irqsave(&channel.rx_wq.lock);
	bool parked = channel.rx_parked;
	spin_unlock_irqrestore(&channel.rx_wq.lock, f);
	return parked;
}

bool channel_hold(void)
{
	if (!channel.present)
		return false;
	irqflags_t f = spin_lock_irqsave(&hold_lock);
	bool mine = !holder;
	if (mine)
		holder = thread_current();
	spin_unlock_irqrestore(&hold_lock, f);
	if (!mine)
		return false;
	WRITE_ONCE(channel.held, true);
	/* Both re-read held at once instead of at their next timeout. */
	waitq_wake_all(&channel.rx_wq);
	channel_output_kick();
	uint64_t deadline = clock_ticks() + ms_to_ticks(HOLD_WAIT_MS);
	while (!(rx_parked() && channel_output_parked()) && clock_ticks() < deadline)
		thread_sleep_ticks(1);
	if (!(rx_parked() && channel_output_parked()))
		printk("channel: held, but its threads are still busy after %u ms\n", HOLD_WAIT_MS);
	return true;
}

void channel_release(void)
{
	WRITE_ONCE(channel.held, false);
	waitq_wake_all(&channel.rx_wq);
	channel_output_kick();
	irqflags_t f = spin_lock_irqsave(&hold_lock);
	holder = NULL;
	spin_unlock_irqrestore(&hold_lock, f);
}
