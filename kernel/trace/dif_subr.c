// SPDX-License-Identifier: BSD-2-Clause
/*
 * DIF subroutines (CALL): D's string functions, rand() and
 * speculation(); the ones that search strings are in dif_subr_search.c,
 * the ones that convert (toupper, strtoll, htonl...) in dif_subr_convert.c.
 * Arguments come from the run's tuple; string arguments are read through
 * the fault-tolerant path and results are made in scratch space, never
 * longer than the program's strsize. copyin and copyinstr read user
 * memory through the environment's copyin alone, never its read.
 * alloca's memory is the only memory a program writes (with stores,
 * bcopy and copyinto), and only where the environment's writable says.
 */
#include <scion/string.h>
#include "dif_internal.h"

static const struct {
	uint8_t min, max, type, scratch;
} arity[DIF_SUBR_LIMIT] = {
#define DIF_SUBR_ARITY(name_, text_, min_, max_, type_, scratch_) \
	[DIF_SUBR_##name_] = { min_, max_, type_, scratch_ },
	DIF_SUBROUTINES(DIF_SUBR_ARITY)
#undef DIF_SUBR_ARITY
};

char *dif_string_arg(struct run *x, unsigned i, long *len)
{
	char *s = dif_scratch_string(x);
	if (!s)
		return NULL;
	*len = dif_read_string(x, x->tuple[i].value, s, x->p->strsize);
	return *len < 0 ? NULL : s;
}

static uint64_t address_of(const char *s)
{
	return (uint64_t)(uintptr_t)s;
}

static int substr(struct run *x, uint64_t *out)
{
	long len;
	char *s = dif_string_arg(x, 0, &len);
	if (!s)
		return -1;
	/*
	 * DTrace's rules: a negative start counts from the end; a start still
	 * before the string eats into the length; a start outside the string
	 * gives ""; a negative length stops that many characters before the
	 * end. Written so no sum of two D values can overflow.
	 */
	int64_t size = (int64_t)x->p->strsize;
	int64_t start = (int64_t)x->tuple[1].value;
	int64_t n = x->ntuple == 3 ? (int64_t)x->tuple[2].value : size;
	if (start < 0) {
		start += len;
		if (start < 0 && n > 0 && n + start > 0) {	/* n > -start, which may not exist */
			n += start;
			start = 0;
		}
	}
	if (start < 0 || start >= len) {
		n = 0;
	} else {
		if (n < 0)
			n += len - start;
		else if (n > size - start)
			n = size - start;
		if (n > len - start)
			n = len - start;
	}
	if (n <= 0) {
		s[0] = '\0';
	} else {
		memmove(s, s + start, (size_t)n);
		s[n] = '\0';
	}
	*out = address_of(s);
	return 0;
}

static int lltostr(struct run *x, uint64_t *out)
{
	uint64_t base = x->ntuple == 2 ? x->tuple[1].value : 10;
	if (base < 2 || base > 36)
		return dif_fail(x, DIF_FAULT_BADARG, base);	/* reported as DTrace's illegal operation */
	char digits[72], *s = dif_scratch_string(x);
	if (!s)
		return -1;
	uint64_t v = x->tuple[0].value;
	bool negative = base == 10 && (int64_t)v < 0;
	if (negative)
		v = -v;
	size_t n = 0;
	do {
		unsigned d = (unsigned)(v % base);
		digits[n++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	/* DTrace's prefixes: 0x for base 16, 0 for base 8 (zero in base 8 stays "0"). */
	if (base == 16)
		digits[n++] = 'x';
	if ((base == 16 || base == 8) && !(base == 8 && x->tuple[0].value == 0))
		digits[n++] = '0';
	size_t k = 0;
	if (negative)
		s[k++] = '-';
	while (n && k + 1 < x->p->strsize)
		s[k++] = digits[--n];
	s[k] = '\0';
	*out = address_of(s);
	return 0;
}

/* basename and dirname as dtrace has them: trailing slashes ignored, "." for none. */
static int path_part(struct run *x, bool dir, uint64_t *out)
{
	long len;
	char *s = dif_string_arg(x, 0, &len);
	if (!s)
		return -1;
	long end = len;
	while (end > 1 && s[end - 1] == '/')
		end--;
	long slash = end - 1;
	while (slash >= 0 && s[slash] != '/')
		slash--;
	if (!dir) {
		if (end == 1 && s[0] == '/') {
			s[1] = '\0';
		} else {
			memmove(s, s + slash + 1, (size_t)(end - slash - 1));
			s[end - slash - 1] = '\0';
		}
		if (len == 0)
			s[0] = '.', s[1] = '\0';
	} else if (slash < 0) {
		s[0] = '.', s[1] = '\0';
	} else {
		while (slash > 0 && s[slash - 1] == '/')
			slash--;
		s[slash == 0 ? 1 : slash] = '\0';
	}
	*out = address_of(s);
	return 0;
}

static int user_fault(struct run *x, uint64_t addr)
{
	return dif_fail(x, DIF_FAULT_BADADDR, addr);
}

/* copyin(addr, size): size bytes of user memory in scratch (at most strsize). */
static int copyin(struct run *x, uint64_t *out)
{
	uint64_t addr = x->tuple[0].value, size = x->tuple[1].value;
	if (size > x->p->strsize)
		return dif_fail(x, DIF_FAULT_BADARG, size);
	uint8_t *buf = x->ops->scratch(x->env, size ? (size_t)size : 1);
	if (!buf)
		return dif_fail(x, DIF_FAULT_NOSCRATCH, 0);
	if (size && (!x->ops->copyin || x->ops->copyin(x->env, addr, buf, (size_t)size)))
		return user_fault(x, addr);
	*out = address_of((const char *)buf);
	return 0;
}

/* copyinstr(addr[, max]): the user string at addr, at most max bytes (and strsize - 1). */
static int copyinstr(struct run *x, uint64_t *out)
{
	uint64_t addr = x->tuple[0].value;
	size_t room = x->p->strsize;
	if (x->ntuple == 2 && x->tuple[1].value < room - 1)
		room = (size_t)x->tuple[1].value + 1;
	char *s = dif_scratch_string(x);
	if (!s)
		return -1;
	if (!x->ops->copyin)
		return user_fault(x, addr);
	struct dif_env_ops user = *x->ops;
	user.read = x->ops->copyin;
	uint64_t bad;
	if (dif_copy_string(&user, x->env, addr, s, room, &bad) < 0)
		return user_fault(x, bad);
	*out = address_of(s);
	return 0;
}

/* alloca(size): size bytes of zeroed scratch the program may write. */
static int alloca_(struct run *x, uint64_t *out)
{
	uint64_t size = x->tuple[0].value;
	if (size > DIF_ALLOCA_MAX)
		return dif_fail(x, DIF_FAULT_NOSCRATCH, 0);
	size_t bytes = size ? (size_t)size : 1;
	/* Aligned to 8 (the kernel's scratch always is: then no padding is taken). */
	uintptr_t next = (uintptr_t)x->ops->scratch(x->env, 0);
	size_t pad = (8 - next % 8) % 8;
	uint8_t *p = x->ops->scratch(x->env, pad + bytes);
	if (!p)
		return dif_fail(x, DIF_FAULT_NOSCRATCH, 0);
	p += pad;
	memset(p, 0, bytes);
	*out = address_of((const char *)p);
	return 0;
}

/* 0 if the program may write all of [dst, dst + size); else -1 after the fault (at dst). */
static int check_writable(struct run *x, uint64_t dst, uint64_t size)
{
	if (size > DIF_ALLOCA_MAX || dst + size < dst)
		return dif_fail(x, DIF_FAULT_BADARG, size);
	if (size && (!x->ops->writable || !x->ops->writable(x->env, dst, (size_t)size)))
		return dif_fail(x, DIF_FAULT_BADADDR, dst);
	return 0;
}

/*
 * bcopy(src, dst, size) and copyinto(addr, size, dst): size bytes read
 * at src (user memory at addr) into dst, which must be writable. The
 * source is read in pieces that never cross a page, through the
 * fault-tolerant path, so a bad page faults at its own address.
 */
static int copy_into(struct run *x, bool user)
{
	uint64_t src = x->tuple[0].value;
	uint64_t size = user ? x->tuple[1].value : x->tuple[2].value;
	uint64_t dst = user ? x->tuple[2].value : x->tuple[1].value;
	if (check_writable(x, dst, size))
		return -1;
	int (*read)(void *, uint64_t, void *, size_t) = user ? x->ops->copyin : x->ops->read;
	uint8_t *to = (uint8_t *)(uintptr_t)dst;
	for (uint64_t done = 0; done < size;) {
		uint64_t at = src + done, n = DIF_READ_CHUNK - at % DIF_READ_CHUNK;
		if (n > size - done)
			n = size - done;
		if (!read || read(x->env, at, to + done, (size_t)n))
			return dif_fail(x, DIF_FAULT_BADADDR, at);
		done += n;
	}
	return 0;
}

static int call(struct run *x, unsigned id, uint64_t *out)
{
	long len;
	switch (id) {
	case DIF_SUBR_STRLEN: {
		if (!dif_string_arg(x, 0, &len))
			return -1;
		*out = (uint64_t)len;
		return 0;
	}
	case DIF_SUBR_STRJOIN: {
		long alen, blen;
		char *a = dif_string_arg(x, 0, &alen), *b = a ? dif_string_arg(x, 1, &blen) : NULL;
		if (!b)
			return -1;
		long room = (long)x->p->strsize - 1 - alen;
		if (blen > room)
			blen = room;
		memcpy(a + alen, b, (size_t)blen);
		a[alen + blen] = '\0';
		*out = address_of(a);
		return 0;
	}
	case DIF_SUBR_SUBSTR:
		return substr(x, out);
	case DIF_SUBR_INDEX:
	case DIF_SUBR_RINDEX:
	case DIF_SUBR_STRSTR:
	case DIF_SUBR_STRCHR:
	case DIF_SUBR_STRRCHR:
	case DIF_SUBR_STRTOK:
		return dif_subr_search(x, id, out);
	case DIF_SUBR_LLTOSTR:
		return lltostr(x, out);
	case DIF_SUBR_BASENAME:
		return path_part(x, false, out);
	case DIF_SUBR_DIRNAME:
		return path_part(x, true, out);
	case DIF_SUBR_RAND:
		*out = x->ops->random(x->env);
		return 0;
	case DIF_SUBR_SPECULATION:
		*out = x->ops->speculation(x->env);
		return 0;
	case DIF_SUBR_COPYIN:
		return copyin(x, out);
	case DIF_SUBR_COPYINSTR:
		return copyinstr(x, out);
	case DIF_SUBR_ALLOCA:
		return alloca_(x, out);
	case DIF_SUBR_BCOPY:
	case DIF_SUBR_COPYINTO:
		*out = 0;
		return copy_into(x, id == DIF_SUBR_COPYINTO);
	case DIF_SUBR_TOUPPER:
	case DIF_SUBR_TOLOWER:
	case DIF_SUBR_STRTOLL:
	case DIF_SUBR_HTONS:
	case DIF_SUBR_HTONL:
	case DIF_SUBR_HTONLL:
	case DIF_SUBR_NTOHS:
	case DIF_SUBR_NTOHL:
	case DIF_SUBR_NTOHLL:
	case DIF_SUBR_CLEANPATH:
		return dif_subr_convert(x, id, out);
	}
	return dif_fail(x, DIF_FAULT_ILLOP, id);
}

int dif_subr_call(struct run *x, unsigned id, uint64_t *out)
{
	if (id >= DIF_SUBR_LIMIT || x->ntuple < arity[id].min || x->ntuple > arity[id].max)
		return dif_fail(x, DIF_FAULT_BADARG, x->ntuple);
	/* A result not in scratch leaves nothing there that anyone reads: give the copies back. */
	void *mark = arity[id].scratch == DIF_SUBR_DROP ? dif_scratch_mark(x) : NULL;
	int err = call(x, id, out);
	if (!err)
		dif_scratch_release(x, mark);
	return err;
}
