// SPDX-License-Identifier: BSD-2-Clause
/*
 * A process's own version of the kernel's getpid (kernel/proc/sys_proc.c's
 * sys_getpid), for test_codeadapt.py: the pid plus 1000, so the process
 * that has it installed sees the difference and every other does not.
 * Built by `scion codeadapt version` with the kernel's flags.
 */
#include <scion/proc.h>

int64_t getpid_plus_1000(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
			 uint64_t a5);

int64_t getpid_plus_1000(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
			 uint64_t a5)
{
	(void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
	return proc_pid(proc_current()) + 1000;
}
