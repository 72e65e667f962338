// SPDX-License-Identifier: BSD-2-Clause
/*
 * vsnprintf for the kernel. It never writes past size bytes and always
 * counts the full length, so callers can detect truncation.
 */
#include <scion/format.h>
#include <scion/string.h>

struct out {
	char *buf;
	size_t size;
	size_t len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void pad(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

enum {
	F_LEFT = 1, F_ZERO = 2, F_PLUS = 4, F_SPACE = 8, F_ALT = 16,
};

static void put_number(struct out *o, uint64_t v, bool negative, unsigned base,
		       bool upper, int flags, int width, int precision)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;
	char sign = 0;
	const char *prefix = "";

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);
	if (precision == 0 && n == 1 && tmp[0] == '0')
		n = 0;
	if (negative)
		sign = '-';
	else if (flags & F_PLUS)
		sign = '+';
	else if (flags & F_SPACE)
		sign = ' ';
	if ((flags & F_ALT) && base == 16)
		prefix = upper ? "0X" : "0x";
	else if ((flags & F_ALT) && base == 8)
		prefix = "0";

	int zeros = precision > n ? precision - n : 0;
	int total = n + zeros + (sign ? 1 : 0) + (int)strlen(prefix);

	if (!(flags & F_LEFT) && (flags & F_ZERO) && precision < 0) {
		zeros += width > total ? width - total : 0;
		total = width > total ? width : total;
	}
	if (!(flags & F_LEFT))
		pad(o, ' ', width - total);
	if (sign)
		put(o, sign);
	for (const char *p = prefix; *p; p++)
		put(o, *p);
	pad(o, '0', zeros);
	while (n)
		put(o, tmp[--n]);
	if (flags & F_LEFT)
		pad(o, ' ', width - total);
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap)
{
	struct out o = { buf, size, 0 };

	for (; *fmt; fmt++) {
		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		int flags = 0;
		for (;; fmt++) {
			if (*fmt == '-') flags |= F_LEFT;
			else if (*fmt == '0') flags |= F_ZERO;
			else if (*fmt == '+') flags |= F_PLUS;
			else if (*fmt == ' ') flags |= F_SPACE;
			else if (*fmt == '#') flags |= F_ALT;
			else break;
		}
		int width = 0;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				flags |= F_LEFT;
				width = -width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		int precision = -1;
		if (*fmt == '.') {
			fmt++;
			precision = 0;
			if (*fmt == '*') {
				precision = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					precision = precision * 10 + (*fmt++ - '0');
			}
		}
		int lng = 0; /* 0 int, 1 long, 2 long long, -1 short, -2 char */
		for (;; fmt++) {
			if (*fmt == 'l') lng++;
			else if (*fmt == 'h') lng--;
			else if (*fmt == 'z' || *fmt == 't' || *fmt == 'j') lng = 2;
			else break;
		}

		uint64_t u;
		int64_t s;
		switch (*fmt) {
		case 'd':
		case 'i':
			if (lng >= 1) s = lng == 1 ? va_arg(ap, long) : va_arg(ap, long long);
			else s = va_arg(ap, int);
			if (lng == -1) s = (short)s;
			if (lng <= -2) s = (signed char)s;
			put_number(&o, s < 0 ? (uint64_t)0 - (uint64_t)s : (uint64_t)s,
				   s < 0, 10, false, flags, width, precision);
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			if (lng >= 1) u = lng == 1 ? va_arg(ap, unsigned long) : va_arg(ap, unsigned long long);
			else u = va_arg(ap, unsigned int);
			if (lng == -1) u = (unsigned short)u;
			if (lng <= -2) u = (unsigned char)u;
			put_number(&o, u, false, *fmt == 'u' ? 10 : *fmt == 'o' ? 8 : 16,
				   *fmt == 'X', flags, width, precision);
			break;
		case 'p':
			u = (uintptr_t)va_arg(ap, void *);
			put_number(&o, u, false, 16, false, F_ALT | F_ZERO, 18, -1);
			break;
		case 'c':
			pad(&o, ' ', (flags & F_LEFT) ? 0 : width - 1);
			put(&o, (char)va_arg(ap, int));
			pad(&o, ' ', (flags & F_LEFT) ? width - 1 : 0);
			break;
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			int n = (int)strnlen(str, precision >= 0 ? (size_t)precision : SIZE_MAX);
			if (!(flags & F_LEFT))
				pad(&o, ' ', width - n);
			for (int i = 0; i < n; i++)
				put(&o, str[i]);
			if (flags & F_LEFT)
				pad(&o, ' ', width - n);
			break;
		}
		case '%':
			put(&o, '%');
			break;
		case '\0':
			fmt--;
			break;
		default:
			put(&o, '%');
			put(&o, *fmt);
			break;
		}
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
