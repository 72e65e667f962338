// SPDX-License-Identifier: BSD-2-Clause
/*
 * hello: the smallest user program. Prints "hello from user space" and
 * its arguments, argv[0] first, and exits 0 -- or N when an argument is
 * "--exit=N", which lets `procs` check that execve passed the arguments
 * it was given. Built twice: as a static ET_EXEC (hello) and as a static
 * PIE (hello-pie), the two kinds of binary the ELF loader must take.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int status = 0;

	printf("hello from user space (argv[0] = %s)\n", argc > 0 && argv[0] ? argv[0] : "(none)");
	for (int i = 1; i < argc; i++) {
		printf("hello: argv[%d] = %s\n", i, argv[i]);
		if (!strncmp(argv[i], "--exit=", 7))
			status = atoi(argv[i] + 7);
	}
	return status;
}
