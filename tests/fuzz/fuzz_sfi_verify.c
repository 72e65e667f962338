// SPDX-License-Identifier: BSD-2-Clause
/*
 * Fuzz the sandbox's verifier (arch/x86/sfi_verify.c) with arbitrary
 * and mutated graft code, and run whatever it accepts.
 *
 * The input is the start of a text region (TEXT_SIZE bytes at TEXT,
 * the rest ud2, the last bundle the exit stub, as the kernel's loader
 * lays it out). Before verifying, the harness does what the loader's
 * relocations do for a sandboxed graft: it writes the region's mask and
 * base into every `and $imm32, %r14` and `or $imm32, %r14`, so that
 * mutations of real grafts (the seeds: the .text of build/grafts/) keep
 * getting past the masks. The verifier must never crash (ASan, UBSan).
 *
 * Code it accepts runs in a child process laid out like a graft's
 * window: %r15 the window base, the stack at its bottom, the data
 * region aliased at its offset; the window's gaps unmapped. Canary
 * pages shared with the parent sit where no store of a verified graft
 * can reach: around the data and the text, and just outside the reach
 * of a window register plus a 32-bit displacement. The child ends by
 * the exit gate, a fault, or a timer; whichever, every canary must be
 * as the parent filled it, else the verifier accepted code that
 * stores outside its confinement.
 */
#define _GNU_SOURCE	/* memfd_create, MAP_FIXED_NOREPLACE */
#include <errno.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <arch/sfi.h>
#include <arch/insn.h>
#include "fuzz.h"

#define TEXT       0x40000000ull	/* bottom 2 GiB: the or $imm32 base works */
#define TEXT_SIZE  8192ull
#define STUBS      (TEXT - 0x100000)	/* the API stub and the exit gate, rel32 away */
#define DATA       0x50000000ull
#define DATA_SIZE  4096ull
#define WINDOW     0x200000000000ull	/* 4 GiB aligned, above ASan's shadow */
#define PAGE       4096ull
#define REACH      (1ull << 31)		/* a 32-bit displacement's reach */
#define CANARY_BYTE 0xa5
#define RUN_USEC   20000

void fuzz_sfi_enter(uint64_t entry, uint64_t window, uint64_t stack_top, uint64_t exit_stub)
	__attribute__((noreturn));
extern const uint8_t fuzz_sfi_api[], fuzz_sfi_api_end[], fuzz_sfi_gate[], fuzz_sfi_gate_end[];

/* Where no verified store may land. */
static const uint64_t canaries[] = {
	DATA - PAGE, DATA + DATA_SIZE,
	WINDOW + (DATA & 0xffffffffull) - PAGE, WINDOW + (DATA & 0xffffffffull) + DATA_SIZE,
	TEXT - PAGE, TEXT + TEXT_SIZE,
	WINDOW - REACH - PAGE, WINDOW + SFI_WINDOW_SIZE + REACH,
};
#define NCANARIES (sizeof(canaries) / sizeof(canaries[0]))

static uint8_t *text;
static uint64_t api_entry, exit_gate;
static bool ready;
static unsigned long accepted, refused, ended_at_gate;

static void report(void)
{
	fprintf(stderr, "fuzz_sfi_verify: %lu accepted and run (%lu reached the exit gate), "
		"%lu refused\n", accepted, ended_at_gate, refused);
}

static void *map_at(uint64_t addr, uint64_t size, int prot, int flags, int fd)
{
	void *p = mmap((void *)(uintptr_t)addr, size, prot, flags | MAP_FIXED_NOREPLACE, fd, 0);
	FUZZ_ASSERT(p == (void *)(uintptr_t)addr, "cannot map 0x%llx", (unsigned long long)addr);
	return p;
}

static void set_up(void)
{
	text = map_at(TEXT, TEXT_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	uint8_t *stubs = map_at(STUBS, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	size_t api_len = (size_t)(fuzz_sfi_api_end - fuzz_sfi_api);
	memcpy(stubs, fuzz_sfi_api, api_len);
	memcpy(stubs + 64, fuzz_sfi_gate, (size_t)(fuzz_sfi_gate_end - fuzz_sfi_gate));
	FUZZ_ASSERT(!mprotect(stubs, PAGE, PROT_READ | PROT_EXEC), "mprotect stubs");
	api_entry = STUBS;
	exit_gate = STUBS + 64;

	/* The data, and its alias in the window: the same pages. */
	int fd = memfd_create("sfi-data", 0);
	FUZZ_ASSERT(fd >= 0 && !ftruncate(fd, DATA_SIZE), "memfd");
	map_at(DATA, DATA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	map_at(WINDOW + (DATA & 0xffffffffull), DATA_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd);
	map_at(WINDOW, SFI_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1);
	for (size_t i = 0; i < NCANARIES; i++)
		map_at(canaries[i], PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1);
	signal(SIGCHLD, SIG_DFL);	/* the child's status is waited for */
	ready = true;
	atexit(report);
}

static bool is_api(void *ctx, uint64_t addr)
{
	(void)ctx;
	return addr == api_entry;
}

/*
 * What the loader's relocations write for a sandboxed graft: the
 * masks' immediates (and $imm32, %r14 gets the text mask unless it is
 * the stack guard's; or $imm32, %r14 the text base), found by decoding
 * from the start as the verifier does.
 */
static void complete_masks(uint8_t *code, size_t n)
{
	struct insn in;
	uint32_t mask = sfi_text_mask((uint32_t)TEXT_SIZE), base = (uint32_t)TEXT;

	for (size_t off = 0; off < n; off += in.length) {
		if (insn_decode(&in, code + off, n - off, TEXT + off) != INSN_OK)
			return;
		bool r14_imm32 = in.map == INSN_MAP_ONE && in.opcode == 0x81 && (in.rex & 0x9) == 0x9 &&
				 (in.modrm & 0xc7) == 0xc6 && in.imm_size == 4;	/* REX.W+B, mod 3, rm 6 */
		unsigned op = (in.modrm >> 3) & 7;
		if (r14_imm32 && op == 4 && in.imm != SFI_STACK_MASK)
			memcpy(code + off + in.imm_offset, &mask, sizeof(mask));
		else if (r14_imm32 && op == 1)
			memcpy(code + off + in.imm_offset, &base, sizeof(base));
	}
}

/* The kernel's layout of a text region (arch/x86/sfi_text.c), with the input as its code. */
static void lay_out(const uint8_t *data, size_t size)
{
	size_t n = size < TEXT_SIZE - SFI_BUNDLE ? size : TEXT_SIZE - SFI_BUNDLE;
	arch_sfi_text_init(text, TEXT, TEXT_SIZE, exit_gate);
	memcpy(text, data, n);
	complete_masks(text, n);
}

static void fill_canaries(void)
{
	for (size_t i = 0; i < NCANARIES; i++)
		memset((void *)(uintptr_t)canaries[i], CANARY_BYTE, PAGE);
}

static void check_canaries(const uint8_t *data, size_t size)
{
	for (size_t i = 0; i < NCANARIES; i++) {
		const uint8_t *p = (const uint8_t *)(uintptr_t)canaries[i];
		for (size_t j = 0; j < PAGE; j++)
			FUZZ_ASSERT(p[j] == CANARY_BYTE, "verified code (%zu bytes) wrote 0x%llx",
				    size, (unsigned long long)(canaries[i] + j));
	}
	(void)data;
}

static void run_child(void)
{
	struct itimerval limit = { .it_value = { .tv_usec = RUN_USEC } };
	signal(SIGALRM, SIG_DFL);
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	signal(SIGILL, SIG_DFL);
	signal(SIGFPE, SIG_DFL);
	signal(SIGTRAP, SIG_DFL);
	if (mprotect(text, TEXT_SIZE, PROT_READ | PROT_EXEC))
		_exit(2);
	setitimer(ITIMER_REAL, &limit, NULL);
	fuzz_sfi_enter(TEXT, WINDOW, WINDOW + SFI_STACK_SIZE - 16, TEXT + TEXT_SIZE - SFI_BUNDLE);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t marks[TEXT_SIZE];
	char err[SFI_ERR_MAX];

	if (!ready)
		set_up();
	lay_out(data, size);
	const struct sfi_layout layout = {
		.text = TEXT, .text_size = TEXT_SIZE, .entry = TEXT, .data = DATA,
		.data_size = DATA_SIZE, .exit_gate = exit_gate, .is_api_entry = is_api,
	};
	if (sfi_verify(text, &layout, marks, err)) {
		FUZZ_ASSERT(err[0] && strlen(err) < SFI_ERR_MAX, "a refusal without its line");
		refused++;
		return 0;
	}
	accepted++;
	fill_canaries();
	pid_t pid = fork();
	FUZZ_ASSERT(pid >= 0, "fork");
	if (pid == 0)
		run_child();
	int status;
	pid_t got;
	while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		continue;
	FUZZ_ASSERT(got == pid, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		ended_at_gate++;
	check_canaries(data, size);
	return 0;
}
