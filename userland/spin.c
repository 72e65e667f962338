// SPDX-License-Identifier: BSD-2-Clause
/*
 * spin: a program that never ends and never makes a system call once it
 * runs: an infinite loop, for killing from the shell and for checking
 * that the timer preempts user code. Prints its pid first.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("spin: pid %d spinning forever\n", (int)getpid());
	fflush(stdout);
	for (volatile unsigned long n = 0;; n++)
		;
}
