// SPDX-License-Identifier: BSD-2-Clause
/*
 * The SPARC V9 decoder's oracle test: decode every word of the .text of
 * sparc64 ELF files and compare with what sparc64-linux-gnu-objdump -d
 * says about the same word:
 *
 *   validity   objdump's "unknown" or ".word" against INSN_INVALID
 *   mnemonic   objdump's name (its synthetic names mapped to the
 *              instructions they stand for: mov -> or/rd/wr, cmp -> subcc,
 *              b -> ba ...) against insn_mnemonic
 *   ,a ,pn     the annul bit and the prediction of branches
 *   target     the PC-relative target of branches and call
 *   registers  the integer registers named in objdump's operands against
 *              rd/rs1/rs2 as the form uses them (%g0 left out on both
 *              sides: the synthetic names drop it), and the destination:
 *              objdump's last operand is rd when the form writes rd
 *   memory     a "[...]" operand exactly when the decoder sees a memory
 *              access, prefetch or flush; "%asi" exactly when the access
 *              goes through the %asi register or rd/wr moves it
 *
 * Counted apart, not as mismatches: words objdump decodes that V9
 * reserves (the decoder says why: insn.invalid_why, from [reserved] in
 * arch/sparc64/opcodes.map), and the V9 instructions objdump cannot show
 * (objdump_gap).
 *
 *   check-sparc64-decoder FILE...             ELF files: their .text
 *   check-sparc64-decoder --raw FILE...       raw big-endian words (objdump -b binary,
 *                                             as UltraSPARC III: -m sparc:v9b)
 *   check-sparc64-decoder --random SEED N     N random words from SEED, as --raw
 *   check-sparc64-decoder --sweep             every form-selecting field value (sweep_words)
 *
 * Every word of .text must be listed by objdump (run with -z, so runs of
 * zero words are listed too) and match the ELF's bytes. The last line is
 * exactly `checked N instructions in F files: M mismatches`, the line the
 * x86 oracle ends with.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arch/insn.h>

#define MAX_REPORTS 25
#define OBJDUMP "sparc64-linux-gnu-objdump"

struct totals {
	uint64_t insns, mismatches, invalid, targets, reg_checks, dest_checks;
	uint64_t reserved_objdump_decodes, objdump_gaps, mem_checks;
	unsigned files, reports;
};

struct text {
	uint8_t *image;
	const uint8_t *bytes;
	uint64_t addr, size;
};

static uint64_t be(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* The .text of a big-endian ELF64 SPARC V9 file: 0, or -errno / -ENOEXEC / -ENOENT. */
static int elf_text(const char *path, struct text *t)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	uint8_t *img = malloc(size > 0 ? (size_t)size : 1);
	if (!img || fread(img, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		free(img);
		return -EIO;
	}
	fclose(f);
	t->image = img;
	if (size < (long)sizeof(Elf64_Ehdr) || memcmp(img, ELFMAG, SELFMAG) ||
	    img[EI_CLASS] != ELFCLASS64 || img[EI_DATA] != ELFDATA2MSB ||
	    be(img + offsetof(Elf64_Ehdr, e_machine), 2) != EM_SPARCV9)
		return -ENOEXEC;
	uint64_t shoff = be(img + offsetof(Elf64_Ehdr, e_shoff), 8);
	unsigned shentsize = (unsigned)be(img + offsetof(Elf64_Ehdr, e_shentsize), 2);
	unsigned shnum = (unsigned)be(img + offsetof(Elf64_Ehdr, e_shnum), 2);
	unsigned shstrndx = (unsigned)be(img + offsetof(Elf64_Ehdr, e_shstrndx), 2);
	if (shentsize < sizeof(Elf64_Shdr) || shoff + (uint64_t)shnum * shentsize > (uint64_t)size ||
	    shstrndx >= shnum)
		return -ENOEXEC;
	const uint8_t *strs = img + shoff + (uint64_t)shstrndx * shentsize;
	uint64_t stroff = be(strs + offsetof(Elf64_Shdr, sh_offset), 8);
	for (unsigned i = 0; i < shnum; i++) {
		const uint8_t *sh = img + shoff + (uint64_t)i * shentsize;
		uint64_t name = stroff + be(sh + offsetof(Elf64_Shdr, sh_name), 4);
		uint64_t off = be(sh + offsetof(Elf64_Shdr, sh_offset), 8);
		uint64_t sz = be(sh + offsetof(Elf64_Shdr, sh_size), 8);
		if (name + 6 > (uint64_t)size || memcmp(img + name, ".text", 6))
			continue;
		if (off + sz > (uint64_t)size)
			return -ENOEXEC;
		t->bytes = img + off;
		t->size = sz;
		t->addr = be(sh + offsetof(Elf64_Shdr, sh_addr), 8);
		return 0;
	}
	return -ENOENT;
}

static void report(struct totals *t, const char *file, uint64_t addr, uint32_t word,
		   const char *what, const char *line)
{
	static long max_reports = -1;
	if (max_reports < 0) {
		const char *env = getenv("CHECK_DECODER_REPORTS");
		max_reports = env ? strtol(env, NULL, 10) : MAX_REPORTS;
	}
	t->mismatches++;
	if (t->reports++ >= (unsigned)max_reports)
		return;
	fprintf(stderr, "MISMATCH %s 0x%llx %08x: %s\n    objdump: %s\n", file,
		(unsigned long long)addr, word, what, line);
}

/* objdump's synthetic and older names, and the instructions they may stand for. */
static const struct { const char *objdump, *ours[3]; } aliases[] = {
	{ "b", { "ba" } }, { "fb", { "fba" } },
	{ "ld", { "lduw", "ldf", "ldfsr" } }, { "st", { "stw", "stf", "stfsr" } },
	{ "ldd", { "ldd", "lddf" } }, { "std", { "std", "stdf" } },
	{ "ldq", { "ldqf" } }, { "stq", { "stqf" } },
	{ "lda", { "lduwa", "ldfa" } }, { "sta", { "stwa", "stfa" } },
	{ "ldda", { "ldda", "lddfa" } }, { "stda", { "stda", "stdfa" } },
	{ "ldqa", { "ldqfa" } }, { "stqa", { "stqfa" } },
	{ "ldx", { "ldx", "ldxfsr" } }, { "stx", { "stx", "stxfsr" } },
	{ "clr", { "or", "stw" } }, { "clrb", { "stb" } }, { "clrh", { "sth" } },
	{ "clrx", { "stx" } }, { "mov", { "or", "rd", "wr" } }, { "cmp", { "subcc" } },
	{ "tst", { "orcc" } }, { "btst", { "andcc" } }, { "bset", { "or" } },
	{ "bclr", { "andn" } }, { "btog", { "xor" } }, { "inc", { "add" } },
	{ "dec", { "sub" } }, { "inccc", { "addcc" } }, { "deccc", { "subcc" } },
	{ "neg", { "sub" } }, { "not", { "xnor" } }, { "call", { "call", "jmpl" } },
	{ "signx", { "sra" } }, { "clruw", { "srl" } }, { "ldtw", { "ldd" } }, { "sttw", { "std" } },
	{ "ldtwa", { "ldda" } }, { "sttwa", { "stda" } }, { "iprefetch", { "bn" } },
	/* objdump names jmpl %i7+8 / %o7+8 ret / retl whatever rd is */
	{ "ret", { "ret", "jmpl" } }, { "retl", { "retl", "jmpl" } },
};

static bool mnemonic_agrees(const char *theirs, const char *ours)
{
	if (!strcmp(theirs, ours))
		return true;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].objdump, theirs))
			for (unsigned k = 0; k < 3 && aliases[i].ours[k]; k++)
				if (!strcmp(aliases[i].ours[k], ours))
					return true;
	return false;
}

/*
 * V9 instructions objdump 2.40 prints as "unknown" although its assembler
 * writes them: stqa (STQFA) has no entry its disassembler reaches.
 */
static bool objdump_gap(const char *ours)
{
	return !strcmp(ours, "stqfa");
}

/* The integer registers named in text (up to a '<' symbol note); %g0 left out. */
static uint32_t named_registers(const char *p, const char *end)
{
	uint32_t set = 0;
	for (; p < end && *p; p++) {
		if (*p != '%')
			continue;
		if (!strncmp(p, "%sp", 3) && !isalnum((unsigned char)p[3]))
			set |= INSN_REG(INSN_SP);
		else if (!strncmp(p, "%fp", 3) && !isalnum((unsigned char)p[3]))
			set |= INSN_REG(INSN_FP);
		else if (strchr("goli", p[1]) && p[1] && p[2] >= '0' && p[2] <= '7' &&
			 !isalnum((unsigned char)p[3])) {
			unsigned base = p[1] == 'g' ? 0 : p[1] == 'o' ? 8 : p[1] == 'l' ? 16 : 24;
			set |= INSN_REG(base + (unsigned)(p[2] - '0'));
		}
	}
	return set & INSN_GPRS;
}

/* The registers our decoding says the text names: rd, rs1, rs2 as the form uses them. */
static uint32_t our_named(const struct insn *in)
{
	uint32_t set = 0;
	if (in->operands & (INSN_OPD_RD_R | INSN_OPD_RD_W))
		set |= INSN_REG(in->rd);
	if (in->operands & INSN_OPD_RS1)
		set |= INSN_REG(in->rs1);
	if (in->operands & INSN_OPD_RS2)
		set |= INSN_REG(in->rs2);
	return set & INSN_GPRS;
}

static void check_line(struct totals *t, const char *file, const struct text *sec, char *line,
		       uint8_t *seen)
{
	char *p = line;
	while (*p == ' ')
		p++;
	char *end;
	uint64_t addr = strtoull(p, &end, 16);
	if (end == p || *end != ':' || end[1] != '\t')
		return;
	p = end + 2;
	uint32_t word = 0;
	unsigned nbytes = 0;
	while (isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1]) &&
	       (p[2] == ' ' || p[2] == '\t' || p[2] == '\0')) {
		word = word << 8 | (uint32_t)strtoul((char[]){ p[0], p[1], 0 }, NULL, 16);
		nbytes++;
		p += 2;
		while (*p == ' ')
			p++;
	}
	if (addr < sec->addr || addr - sec->addr + 4 > sec->size || (addr - sec->addr) % 4)
		return;
	uint64_t off = addr - sec->addr;
	if (nbytes != 4 || be(sec->bytes + off, 4) != word) {
		report(t, file, addr, word, "objdump's bytes are not the file's", line);
		return;
	}
	seen[off / 4] = 1;
	while (*p == '\t' || *p == ' ')
		p++;
	t->insns++;

	struct insn in;
	insn_decode(&in, word, addr);
	bool bad = !strncmp(p, "unknown", 7) || !strncmp(p, ".word", 5);
	if (!bad && in.status == INSN_INVALID && in.invalid_why) {
		/* objdump decodes an encoding the architecture reserves: counted apart */
		if (t->reserved_objdump_decodes++ < 3)
			fprintf(stderr, "note: %s 0x%llx: objdump decodes '%s'; V9 reserves it: %s\n", file,
				(unsigned long long)addr, p, in.invalid_why);
		return;
	}
	if (bad && in.status == INSN_OK && objdump_gap(insn_mnemonic(&in))) {
		if (t->objdump_gaps++ < 3)
			fprintf(stderr, "note: %s 0x%llx: %08x is %s, which objdump cannot show\n", file,
				(unsigned long long)addr, word, insn_mnemonic(&in));
		return;
	}
	if (bad || in.status != INSN_OK) {
		if (bad != (in.status != INSN_OK))
			report(t, file, addr, word, bad ? "objdump: unknown, ours valid" :
			       "ours INVALID, objdump decodes it", line);
		else
			t->invalid++;
		return;
	}

	/* The mnemonic and its ,a ,pt ,pn suffixes. */
	char mn[32];
	size_t n = strcspn(p, " \t");
	if (n >= sizeof(mn))
		n = sizeof(mn) - 1;
	memcpy(mn, p, n);
	mn[n] = 0;
	const char *operands = p + n;
	bool annul = false, pn = false, pt = false;
	for (char *c = strchr(mn, ','); c; c = strchr(c + 1, ',')) {
		annul |= !strncmp(c, ",a", 3) || !strncmp(c, ",a,", 3);
		pn |= !strncmp(c, ",pn", 3);
		pt |= !strncmp(c, ",pt", 3);
	}
	char *comma = strchr(mn, ',');
	if (comma)
		*comma = 0;
	char what[160];
	if (!mnemonic_agrees(mn, insn_mnemonic(&in))) {
		snprintf(what, sizeof(what), "mnemonic: objdump %s, ours %s", mn, insn_mnemonic(&in));
		report(t, file, addr, word, what, line);
		return;
	}
	if (in.delayed && in.cf != INSN_CF_CALL &&
	    (annul != in.annul || (in.has_prediction && pn == in.predict_taken) ||
	     (pt && !in.predict_taken))) {
		snprintf(what, sizeof(what), "suffixes: objdump%s%s%s, ours a=%d p=%d", annul ? " ,a" : "",
			 pn ? " ,pn" : "", pt ? " ,pt" : "", in.annul, in.predict_taken);
		report(t, file, addr, word, what, line);
		return;
	}

	/* The target: objdump's last operand before its "<symbol>" note. */
	const char *note = strchr(operands, '<');
	const char *stop = note ? note : operands + strlen(operands);
	if (insn_has_branch_target(&in)) {
		const char *q = stop;
		while (q > operands && (q[-1] == ' ' || q[-1] == '\t'))
			q--;
		while (q > operands && q[-1] != ' ' && q[-1] != ',' && q[-1] != '\t')
			q--;
		uint64_t theirs = strtoull(q, NULL, 16);
		t->targets++;
		if (theirs != in.target) {
			snprintf(what, sizeof(what), "target: ours 0x%llx",
				 (unsigned long long)in.target);
			report(t, file, addr, word, what, line);
			return;
		}
	}

	/* A memory operand ("[ ... ]") exactly when the decoder sees an access or an address. */
	bool theirs_mem = memchr(operands, '[', (size_t)(stop - operands)) != NULL;
	if (theirs_mem != (in.mem != INSN_MEM_NONE)) {
		snprintf(what, sizeof(what), "memory operand: objdump %s, ours %s", theirs_mem ? "yes" : "no",
			 in.mem != INSN_MEM_NONE ? "yes" : "no");
		report(t, file, addr, word, what, line);
		return;
	}
	t->mem_checks++;
	/* %asi named exactly when the access goes through it, or rd/wr move it. */
	bool theirs_asi = false;
	for (const char *q = operands; q && q < stop; q++)
		if (!strncmp(q, "%asi", 4) && !isalnum((unsigned char)q[4]))
			theirs_asi = true;
	bool ours_asi = in.asi_reg || ((in.state_read | in.state_written) & INSN_STATE_ASI);
	if (theirs_asi != ours_asi) {
		snprintf(what, sizeof(what), "%%asi: objdump %s, ours %s", theirs_asi ? "yes" : "no",
			 ours_asi ? "yes" : "no");
		report(t, file, addr, word, what, line);
		return;
	}

	/* The registers named, and the destination. */
	uint32_t theirs = named_registers(operands, stop), ours = our_named(&in);
	if (!strcmp(mn, "ret") || !strcmp(mn, "retl")) {
		ours = 0;	/* jmpl %i7+8 / %o7+8, named by the mnemonic */
	} else if (!strcmp(mn, "call") && in.cf == INSN_CF_CALL_INDIRECT && in.rd == INSN_O7) {
		ours &= ~INSN_REG(INSN_O7) | theirs;	/* jmpl rs, %o7 reads as "call rs" */
	}
	t->reg_checks++;
	if (theirs != ours) {
		snprintf(what, sizeof(what), "registers named: objdump 0x%08x, ours 0x%08x", theirs,
			 ours);
		report(t, file, addr, word, what, line);
		return;
	}
	if ((in.operands & INSN_OPD_RD_W) && in.rd != INSN_G0 && in.cf != INSN_CF_CALL_INDIRECT) {
		const char *last = stop;
		while (last > operands && last[-1] != ',')
			last--;
		t->dest_checks++;
		if (named_registers(last, stop) != INSN_REG(in.rd)) {
			snprintf(what, sizeof(what), "destination: ours %%%s", insn_reg_name(in.rd));
			report(t, file, addr, word, what, line);
		}
	}
}

/* The whole file as words at address 0 (--raw). */
static int raw_text(const char *path, struct text *t)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return -errno;
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	t->image = malloc(size > 0 ? (size_t)size : 1);
	if (!t->image || fread(t->image, 1, (size_t)size, f) != (size_t)size) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	t->bytes = t->image;
	t->size = (uint64_t)size & ~3ull;
	t->addr = 0;
	return 0;
}

static int check_file(struct totals *t, const char *path, bool raw)
{
	struct text sec = { 0 };
	int err = raw ? raw_text(path, &sec) : elf_text(path, &sec);
	if (err) {
		free(sec.image);
		return err;
	}
	uint8_t *seen = calloc(sec.size / 4 + 1, 1);
	char cmd[4200];
	if (raw)
		snprintf(cmd, sizeof(cmd), OBJDUMP " -D -z -b binary -m sparc:v9b -EB '%s'", path);
	else
		snprintf(cmd, sizeof(cmd), OBJDUMP " -d -z -j .text '%s'", path);
	FILE *f = popen(cmd, "r");
	if (!f || !seen) {
		free(sec.image);
		free(seen);
		return -errno;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			line[len - 1] = 0;
		check_line(t, path, &sec, line, seen);
	}
	free(line);
	int status = pclose(f);
	if (status != 0)
		fprintf(stderr, "%s: %s exited with status %d\n", path, OBJDUMP, status);
	for (uint64_t w = 0; w < sec.size / 4; w++)
		if (!seen[w]) {
			uint64_t a = sec.addr + w * 4;
			report(t, path, a, (uint32_t)be(sec.bytes + w * 4, 4), "objdump did not list this word", "");
		}
	t->files++;
	free(seen);
	free(sec.image);
	return status == 0 ? 0 : -EIO;
}

static void put_word(FILE *f, uint32_t w)
{
	uint8_t b[4] = { (uint8_t)(w >> 24), (uint8_t)(w >> 16), (uint8_t)(w >> 8), (uint8_t)w };
	fwrite(b, 1, 4, f);
}

/* N random words from SEED (xorshift64). */
static void random_words(FILE *f, unsigned long seed, unsigned long n)
{
	uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
	for (unsigned long k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		put_word(f, (uint32_t)(x >> 32));
	}
}

/*
 * The structured sweep: every value of the bits that select a form (op,
 * op2 with the branch fields, op3 with rd, rs1, i and a few values of
 * bits 5-12 and rs2, the whole opf space of the FPop and VIS opcodes),
 * so that every form and every field that picks one is met.
 */
static void sweep_words(FILE *f)
{
	static const uint32_t mid[] = { 0x00, 0x01, 0x02, 0x0f, 0x40, 0x80, 0x88, 0xf0 };
	for (uint32_t hi = 0; hi < 1u << 13; hi++)	/* op, a/cond or rd, op2, and bits 19-21 */
		for (uint32_t lo = 0; lo < 4; lo++)
			put_word(f, hi << 19 | lo * 0x15555u);
	for (uint32_t op = 2; op < 4; op++)
		for (uint32_t op3 = 0; op3 < 64; op3++)
			for (uint32_t rd = 0; rd < 32; rd++)
				for (uint32_t rs1 = 0; rs1 < 32; rs1++)
					for (uint32_t i = 0; i < 2; i++)
						for (unsigned m = 0; m < sizeof(mid) / sizeof(mid[0]); m++)
							put_word(f, op << 30 | rd << 25 | op3 << 19 | rs1 << 14 |
								 i << 13 | mid[m] << 5 | (rd ^ rs1));
	for (uint32_t op3 = 0x34; op3 <= 0x37; op3++)
		for (uint32_t opf = 0; opf < 512; opf++)
			for (uint32_t rd = 0; rd < 32; rd += 5)
				for (uint32_t rs1 = 0; rs1 < 32; rs1 += 7)
					for (uint32_t b = 0; b < 2; b++)
						put_word(f, 2u << 30 | rd << 25 | op3 << 19 | rs1 << 14 | opf << 5 |
							 (b ? 0x11 : 0));
}

/* Words from random_words or sweep_words, written to a temporary file and checked as --raw. */
static int check_generated(struct totals *t, bool sweep, unsigned long seed, unsigned long n)
{
	char path[] = "/tmp/check-sparc64-decoder-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	FILE *f = fdopen(fd, "wb");
	if (!f) {
		close(fd);
		unlink(path);
		return -EIO;
	}
	if (sweep)
		sweep_words(f);
	else
		random_words(f, seed, n);
	if (fclose(f)) {
		unlink(path);
		return -EIO;
	}
	int err = check_file(t, path, true);
	unlink(path);
	return err;
}

int main(int argc, char **argv)
{
	struct totals t = { 0 };
	int failures = 0;
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	bool raw = false;
	for (int i = 1; i < argc; i++) {
		int err;
		if (!strcmp(argv[i], "--raw")) {
			raw = true;
			continue;
		}
		if (!strcmp(argv[i], "--random") && i + 2 < argc) {
			err = check_generated(&t, false, strtoul(argv[i + 1], NULL, 0),
					      strtoul(argv[i + 2], NULL, 0));
			i += 2;
		} else if (!strcmp(argv[i], "--sweep")) {
			err = check_generated(&t, true, 0, 0);
		} else {
			err = check_file(&t, argv[i], raw);
		}
		if (err == -ENOEXEC || err == -ENOENT) {
			printf("skipped %s: %s\n", argv[i], err == -ENOEXEC ? "not a sparc64 ELF file" :
			       "no .text");
		} else if (err) {
			fprintf(stderr, "%s: %s\n", argv[i], strerror(-err));
			failures++;
		}
	}
	printf("%llu words valid for both, %llu invalid for both, %llu reserved by V9 but decoded by "
	       "objdump, %llu valid but beyond objdump; %llu branch targets, %llu register sets, "
	       "%llu destinations, %llu memory operands compared\n",
	       (unsigned long long)(t.insns - t.invalid - t.reserved_objdump_decodes - t.objdump_gaps),
	       (unsigned long long)t.invalid, (unsigned long long)t.reserved_objdump_decodes,
	       (unsigned long long)t.objdump_gaps,
	       (unsigned long long)t.targets, (unsigned long long)t.reg_checks,
	       (unsigned long long)t.dest_checks, (unsigned long long)t.mem_checks);
	printf("checked %llu instructions in %u files: %llu mismatches\n", (unsigned long long)t.insns,
	       t.files, (unsigned long long)(t.mismatches + (uint64_t)failures));
	return t.mismatches || failures ? 1 : 0;
}
