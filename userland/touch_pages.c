// SPDX-License-Identifier: BSD-2-Clause
/*
 * touch_pages N [--wait]: map N anonymous pages, write each once
 * (forward), check they read back, and print how many page faults that
 * took (getrusage's minor faults): N on Linux and on Scion by default,
 * fewer where a vm.fault_around graft gives several pages per fault.
 * With --wait it first waits for SIGUSR1, so that a graft can be put
 * on its pid before it touches anything. Prints
 *   touch_pages: N pages, F faults
 *   touch_pages: P passed, Q failed
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include "check.h"

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(int argc, char **argv)
{
	check_start("touch_pages", 1, argv);
	long n = argc > 1 ? atol(argv[1]) : 64;
	if (argc > 2 && !strcmp(argv[2], "--wait")) {
		sigset_t usr1, old;
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, &old);
		signal(SIGUSR1, on_usr1);
		printf("touch_pages: pid %d waits for SIGUSR1\n", getpid());
		while (!go)
			sigsuspend(&old);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	CHECK(n > 0 && n <= 4096, "page count %ld outside 1..4096", n);
	long page = 4096;
	unsigned char *mem = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(mem != MAP_FAILED, "mmap of %ld pages", n);
	if (mem == MAP_FAILED)
		return check_done();
	struct rusage before, after;
	getrusage(RUSAGE_SELF, &before);
	for (long i = 0; i < n; i++)
		mem[i * page] = (unsigned char)(i + 1);
	getrusage(RUSAGE_SELF, &after);
	long bad = 0;
	for (long i = 0; i < n; i++)
		bad += mem[i * page] != (unsigned char)(i + 1) || mem[i * page + 1] != 0;
	CHECK(bad == 0, "%ld pages did not read back what was written", bad);
	printf("touch_pages: %ld pages, %ld faults\n", n, after.ru_minflt - before.ru_minflt);
	return check_done();
}
