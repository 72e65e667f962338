// SPDX-License-Identifier: BSD-2-Clause
/*
 * The decoder's oracle test: decode every instruction GNU objdump lists
 * for the .text of ELF files (or for raw bytes) and compare the length,
 * the direct branch target and the RIP-relative target with objdump's.
 *
 *   check-decoder FILE...            ELF files: their .text
 *   check-decoder --raw FILE...      raw x86-64 bytes (objdump -b binary)
 *   check-decoder --random SEED KB   KB of random bytes from SEED, as --raw
 *   check-decoder --sweep            every opcode of the legacy maps with every
 *                                    ModRM byte and the prefixes none/66/f3/f2/48
 *
 * The comparison is made at objdump's instruction boundaries, so one
 * disagreement never hides the rest. Lines objdump prints as (bad) are
 * skipped and counted; so are lines holding only a prefix that objdump
 * chose to print apart (a REX before another prefix, which the CPU
 * ignores). A second opinion on lengths comes from Zydis when the tool is
 * linked with it (zydis_glue.c). The last line is exactly
 * `checked N instructions in F files: M mismatches`.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arch/insn.h>
#include "second_opinion.h"
#include "elf_text.h"

#define MAX_REPORTS 25

struct totals {
	uint64_t insns, mismatches, bad, prefix_only, targets, rip_targets;
	uint64_t fwait_merged, architecturally_invalid;
	uint64_t bad_we_accept, bad_we_accept_legacy;
	uint64_t second_compared, second_disagreements;
	unsigned files;
	unsigned reports;
};

static bool is_prefix_word(const char *w, size_t n)
{
	static const char *const words[] = {
		"rex", "data16", "data32", "addr32", "addr16", "lock", "rep", "repz", "repnz",
		"repe", "repne", "cs", "ds", "es", "fs", "gs", "ss", "notrack", "bnd", "xacquire",
		"xrelease",
	};
	if (n >= 3 && !strncmp(w, "rex", 3))
		return true;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strlen(words[i]) == n && !strncmp(w, words[i], n))
			return true;
	return false;
}

/* True when text is nothing but prefix names (objdump printed prefixes alone). */
static bool only_prefixes(const char *text)
{
	const char *p = text;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		const char *w = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (!is_prefix_word(w, (size_t)(p - w)))
			return false;
	}
	return true;
}

static bool parse_hex(const char *p, uint64_t *v)
{
	if (p[0] == '0' && p[1] == 'x')
		p += 2;
	if (!isxdigit((unsigned char)*p))
		return false;
	*v = strtoull(p, NULL, 16);
	return true;
}

/* objdump's branch target: the first operand, "401020 <f+0x10>" or "0x1014". */
static bool objdump_branch_target(const char *text, uint64_t *v)
{
	const char *p = text;
	/* skip prefixes and the mnemonic: the target is the last word before '<' or end */
	const char *last = NULL;
	while (*p) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '<' || *p == '#')
			break;
		last = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
	return last && parse_hex(last, v);
}

static bool objdump_rip_target(const char *text, uint64_t *v)
{
	const char *hash = strstr(text, "# ");
	return hash && parse_hex(hash + 2, v);
}

static void report(struct totals *t, const char *file, uint64_t addr, const char *what,
		   const char *line, const uint8_t *bytes, size_t avail)
{
	static long max_reports = -1;
	if (max_reports < 0) {
		const char *env = getenv("CHECK_DECODER_REPORTS");
		max_reports = env ? strtol(env, NULL, 10) : MAX_REPORTS;
	}
	t->mismatches++;
	if (t->reports++ >= (unsigned)max_reports)
		return;
	fprintf(stderr, "MISMATCH %s 0x%llx: %s\n    objdump: %s\n    bytes:", file,
		(unsigned long long)addr, what, line);
	for (size_t i = 0; i < avail && i < 16; i++)
		fprintf(stderr, " %02x", bytes[i]);
	fputc('\n', stderr);
}

static bool is_prefix_byte(uint8_t b)
{
	return (b & 0xf0) == 0x40 || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e ||
	       b == 0x64 || b == 0x65 || b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 ||
	       b == 0xf3;
}

/* Compare one objdump line with our decoding of the same bytes. */
static void check_line(struct totals *t, const char *file, const struct section *sec, char *line)
{
	char *p = line;
	while (*p == ' ')
		p++;
	char *end;
	uint64_t addr = strtoull(p, &end, 16);
	if (end == p || *end != ':' || end[1] != '\t')
		return;
	p = end + 2;
	unsigned nbytes = 0;
	while (isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) &&
	       (p[2] == ' ' || p[2] == '\t' || p[2] == '\0')) {
		nbytes++;
		p += 2;
		while (*p == ' ')
			p++;
	}
	if (*p == '\t')
		p++;
	char *nl = strchr(p, '\n');
	if (nl)
		*nl = '\0';
	if (nbytes == 0 || addr < sec->addr || addr - sec->addr >= sec->size)
		return;
	if (strstr(p, "(bad)") || !strncmp(p, ".byte", 5)) {
		t->bad++;
		struct insn ours;
		uint64_t o = addr - sec->addr;
		if (insn_decode(&ours, sec->bytes + o, sec->size - o, addr) == INSN_OK) {
			t->bad_we_accept++;
			if (ours.encoding == INSN_LEGACY) {
				t->bad_we_accept_legacy++;
				if (getenv("CHECK_DECODER_SHOW_BAD") &&
				    t->bad_we_accept_legacy <= strtoull(getenv("CHECK_DECODER_SHOW_BAD"), NULL, 10)) {
					fprintf(stderr, "objdump (bad), ours %s map %u op %02x len %u:",
						insn_mnemonic(&ours), ours.map, ours.opcode, ours.length);
					for (unsigned i = 0; i < ours.length; i++)
						fprintf(stderr, " %02x", sec->bytes[o + i]);
					fprintf(stderr, "\n");
				}
			}
		}
		return;
	}
	if (only_prefixes(p)) {
		t->prefix_only++;
		return;
	}
	uint64_t off = addr - sec->addr;
	struct insn in;
	insn_decode(&in, sec->bytes + off, sec->size - off, addr);
	t->insns++;
	char what[160];
	/*
	 * objdump treats fwait (9b) as a prefix: it prints fwaits joined to
	 * the x87 instruction after them, or to the prefixes after them alone.
	 */
	if (in.status == INSN_OK && in.map == INSN_MAP_ONE && in.opcode == 0x9b &&
	    in.length < nbytes) {
		unsigned pos = 0;
		struct insn rest = in;
		while (rest.status == INSN_OK && rest.map == INSN_MAP_ONE && rest.opcode == 0x9b &&
		       pos + rest.length < nbytes) {
			pos += rest.length;
			insn_decode(&rest, sec->bytes + off + pos, sec->size - off - pos, addr + pos);
		}
		bool prefixes_only = true;
		for (unsigned i = pos; i < nbytes; i++)
			prefixes_only &= is_prefix_byte(sec->bytes[off + i]);
		if (prefixes_only || (rest.status == INSN_OK && pos + rest.length == nbytes)) {
			t->fwait_merged++;
			return;
		}
	}
	/* Encodings the CPU refuses but objdump prints: same length, counted apart. */
	if (in.status == INSN_INVALID && in.invalid_why && in.length == nbytes) {
		t->architecturally_invalid++;
		if (t->architecturally_invalid <= 3)
			fprintf(stderr, "note: %s 0x%llx: objdump decodes '%s'; the CPU raises #UD: %s\n",
				file, (unsigned long long)addr, p, in.invalid_why);
		return;
	}
	if (in.status != INSN_OK || in.length != nbytes) {
		snprintf(what, sizeof(what), "objdump length %u, ours %s length %u", nbytes,
			 in.status == INSN_OK ? "OK" : in.status == INSN_INVALID ? "INVALID" : "TRUNCATED",
			 in.length);
		report(t, file, addr, what, p, sec->bytes + off, sec->size - off);
		return;
	}
	int second = second_opinion_length(sec->bytes + off, sec->size - off);
	if (second >= 0) {
		t->second_compared++;
		if ((unsigned)second != nbytes) {
			t->second_disagreements++;
			if (t->second_disagreements <= (getenv("CHECK_DECODER_SHOW_SECOND") ? 100000u : 5u))
				fprintf(stderr, "second opinion: %s 0x%llx length %d, objdump and ours %u: %s\n",
					file, (unsigned long long)addr, second, nbytes, p);
		}
	}
	uint64_t theirs;
	if (insn_has_branch_target(&in)) {
		t->targets++;
		if (!objdump_branch_target(p, &theirs) || theirs != in.target) {
			snprintf(what, sizeof(what), "branch target: ours 0x%llx",
				 (unsigned long long)in.target);
			report(t, file, addr, what, p, sec->bytes + off, sec->size - off);
		}
	}
	bool objdump_rip = strstr(p, "(%rip)") || strstr(p, "(%eip)");
	if (in.rip_relative != objdump_rip) {
		report(t, file, addr, in.rip_relative ? "we see a rip-relative operand, objdump does not" :
			"objdump sees a rip-relative operand, we do not", p, sec->bytes + off,
		       sec->size - off);
	} else if (in.rip_relative && objdump_rip_target(p, &theirs)) {
		t->rip_targets++;
		/* With 67 the address is 32 bits; objdump shows it sign-extended. */
		if (in.address_size == 4)
			theirs &= 0xffffffffu;
		if (theirs != in.target) {
			snprintf(what, sizeof(what), "rip-relative target: ours 0x%llx",
				 (unsigned long long)in.target);
			report(t, file, addr, what, p, sec->bytes + off, sec->size - off);
		}
	}
}

static int check_with_objdump(struct totals *t, const char *path, const struct section *sec,
			      bool raw)
{
	char cmd[4096];
	if (raw)
		snprintf(cmd, sizeof(cmd),
			 "objdump -D -b binary -m i386:x86-64 --insn-width=16 --adjust-vma=0x%llx '%s'",
			 (unsigned long long)sec->addr, path);
	else
		snprintf(cmd, sizeof(cmd), "objdump -d --insn-width=16 -j .text '%s'", path);
	FILE *f = popen(cmd, "r");
	if (!f)
		return -errno;
	char *line = NULL;
	size_t cap = 0;
	uint64_t before = t->insns, mismatches = t->mismatches, bad = t->bad;
	while (getline(&line, &cap, f) > 0)
		check_line(t, path, sec, line);
	free(line);
	int status = pclose(f);
	if (status != 0)
		return -EIO;
	t->files++;
	printf("%s: %llu instructions, %llu mismatches, %llu (bad)\n", path,
	       (unsigned long long)(t->insns - before),
	       (unsigned long long)(t->mismatches - mismatches), (unsigned long long)(t->bad - bad));
	return 0;
}

/* Write sec's bytes to a temporary file and compare objdump's reading of it. */
static int check_bytes(struct totals *t, struct section *sec)
{
	char path[] = "/tmp/scion-decoder-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	int err = write(fd, sec->bytes, sec->size) == (ssize_t)sec->size ? 0 : -EIO;
	close(fd);
	if (!err)
		err = check_with_objdump(t, path, sec, true);
	unlink(path);
	return err;
}

static int check_random(struct totals *t, unsigned long seed, unsigned long kb)
{
	struct section sec = { .size = kb * 1024, .addr = 0x100000 };
	sec.bytes = malloc(sec.size);
	srandom((unsigned)seed);
	for (uint64_t i = 0; i < sec.size; i++)
		sec.bytes[i] = (uint8_t)(random() >> 7);
	int err = check_bytes(t, &sec);
	free(sec.bytes);
	return err;
}

/*
 * Every opcode of the one-byte, 0f, 0f 38 and 0f 3a maps with every ModRM
 * byte, under each prefix, one candidate per 32-byte slot. The bytes after
 * the ModRM are 0x90: operands of any length, then nops up to the next slot.
 */
#define SWEEP_SLOT 32

static int check_sweep(struct totals *t)
{
	static const char *const prefixes[] = { "", "\x66", "\xf3", "\xf2", "\x48" };
	static const char *const escapes[] = { "", "\x0f", "\x0f\x38", "\x0f\x3a" };
	const size_t nprefixes = sizeof(prefixes) / sizeof(prefixes[0]);
	const size_t nescapes = sizeof(escapes) / sizeof(escapes[0]);
	struct section sec = { .size = nprefixes * nescapes * 256 * 256 * SWEEP_SLOT, .addr = 0 };

	sec.bytes = malloc(sec.size);
	memset(sec.bytes, 0x90, sec.size);
	uint8_t *slot = sec.bytes;
	for (size_t p = 0; p < nprefixes; p++) {
		for (size_t e = 0; e < nescapes; e++) {
			for (unsigned op = 0; op < 256; op++) {
				for (unsigned modrm = 0; modrm < 256; modrm++, slot += SWEEP_SLOT) {
					size_t n = 0;
					for (const char *c = prefixes[p]; *c; c++)
						slot[n++] = (uint8_t)*c;
					for (const char *c = escapes[e]; *c; c++)
						slot[n++] = (uint8_t)*c;
					slot[n++] = (uint8_t)op;
					slot[n++] = (uint8_t)modrm;
				}
			}
		}
	}
	int err = check_bytes(t, &sec);
	free(sec.bytes);
	return err;
}

int main(int argc, char **argv)
{
	struct totals t = { 0 };
	bool raw = false;
	int failures = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--raw")) {
			raw = true;
			continue;
		}
		if (!strcmp(argv[i], "--sweep")) {
			if (check_sweep(&t)) {
				fprintf(stderr, "check-decoder: sweep failed\n");
				failures++;
			}
			continue;
		}
		if (!strcmp(argv[i], "--random") && i + 2 < argc) {
			unsigned long seed = strtoul(argv[i + 1], NULL, 0), kb = strtoul(argv[i + 2], NULL, 0);
			if (check_random(&t, seed, kb)) {
				fprintf(stderr, "check-decoder: random run failed\n");
				failures++;
			}
			i += 2;
			continue;
		}
		uint8_t *image = NULL;
		struct section sec;
		int err;
		if (raw) {
			size_t size;
			image = read_file(argv[i], &size);
			sec = (struct section){ image, 0, size };
			err = image ? 0 : -errno;
		} else {
			err = elf_text(argv[i], &image, &sec);
		}
		if (!err)
			err = check_with_objdump(&t, argv[i], &sec, raw);
		if (err) {
			fprintf(stderr, "check-decoder: %s: %s\n", argv[i],
				err == -ENOEXEC ? "not an x86-64 ELF file" :
				err == -ENOENT ? "no .text section" : strerror(-err));
			failures++;
		}
		free(image);
	}
	if (t.prefix_only)
		printf("objdump printed %llu prefixes apart from their instruction (skipped)\n",
		       (unsigned long long)t.prefix_only);
	if (t.fwait_merged)
		printf("objdump printed %llu fwait instructions joined to the next (lengths checked)\n",
		       (unsigned long long)t.fwait_merged);
	if (t.architecturally_invalid)
		printf("%llu encodings objdump decodes raise #UD on the CPU (lengths agree)\n",
		       (unsigned long long)t.architecturally_invalid);
	if (t.bad_we_accept)
		printf("objdump (bad) where we decode an instruction: %llu (%llu legacy, the rest "
		       "VEX/EVEX/XOP, whose opcodes we do not validate)\n",
		       (unsigned long long)t.bad_we_accept, (unsigned long long)t.bad_we_accept_legacy);
	printf("branch targets compared: %llu, rip-relative targets compared: %llu\n",
	       (unsigned long long)t.targets, (unsigned long long)t.rip_targets);
	if (t.second_compared)
		printf("%s: %llu lengths compared, %llu disagreements\n", second_opinion_name(),
		       (unsigned long long)t.second_compared,
		       (unsigned long long)t.second_disagreements);
	printf("checked %llu instructions in %u files: %llu mismatches\n",
	       (unsigned long long)t.insns, t.files, (unsigned long long)t.mismatches);
	return failures || t.mismatches ? 1 : 0;
}
