// SPDX-License-Identifier: BSD-2-Clause
/*
 * Anonymous tracing, as dtrace's -A and -a: a D program given as a boot
 * module (a file whose name ends in ".anon": what dtc writes for it,
 * `dtc -o boot.anon -s SCRIPT.d`, or `make run ANON=SCRIPT.d`) is enabled
 * before the shell starts, on the session's own buffers, and keeps
 * tracing with no host attached. `scion trace -a` claims it later
 * (TRACE_ANON): the host gets the EPIDs and the program's JSON back, the
 * records the buffers hold since boot (as many as fit: drops are
 * counted), and everything after, as any trace's; closing the stream
 * ends the session. It is claimed once.
 *
 * The module is a border: it may hold anything. Only its "object_hex"
 * string is read, as hex digits (an odd count or another character is
 * refused), and the object goes through the same loader and verifier as
 * a TRACE_START's.
 *
 * Invariant: anon.session is written at boot, before the channel starts,
 * and afterwards only by the channel thread (the claim).
 */
#include <scion/boot.h>
#include <scion/chan_proto.h>
#include <scion/chan_wire.h>
#include <scion/channel.h>
#include <scion/errno.h>
#include <scion/format.h>
#include <scion/mm.h>
#include <scion/printk.h>
#include <scion/string.h>
#include <scion/trace.h>
#include <arch/mmu.h>

#define OBJECT_KEY "\"object_hex\""

static struct {
	struct trace_session *session;	/* enabled at boot; NULL once claimed (or none) */
	char *json;			/* the module's text, for the claimer */
	uint32_t json_len;
	char source[sizeof(boot_info.modules[0].cmdline)];
} anon;

/* The object dtc's JSON holds as "object_hex": "..." (kmalloc'd), or NULL with why. */
static uint8_t *decode_object(const char *text, size_t len, uint32_t *size, const char **why)
{
	size_t key = sizeof(OBJECT_KEY) - 1, at = 0;
	while (at + key <= len && memcmp(text + at, OBJECT_KEY, key))
		at++;
	if (at + key > len) {
		*why = "no \"object_hex\": give dtc's output for a D program";
		return NULL;
	}
	at += key;
	while (at < len && (text[at] == ' ' || text[at] == ':'))
		at++;
	if (at >= len || text[at] != '"') {
		*why = "\"object_hex\" is not a string";
		return NULL;
	}
	size_t start = ++at;
	while (at < len && digit_value(text[at]) < 16)
		at++;
	size_t digits = at - start;
	if (at >= len || text[at] != '"' || digits == 0 || digits % 2 || digits / 2 > UINT32_MAX) {
		*why = "\"object_hex\" is not an even number of hex digits";
		return NULL;
	}
	uint8_t *object = kmalloc(digits / 2);
	if (!object) {
		*why = "no memory for the trace object";
		return NULL;
	}
	for (size_t i = 0; i < digits / 2; i++)
		object[i] = (uint8_t)(digit_value(text[start + 2 * i]) << 4 |
				      digit_value(text[start + 2 * i + 1]));
	*size = (uint32_t)(digits / 2);
	return object;
}

/* Enable one module's program; the console line says what happened. */
static void enable(const struct boot_module *m, const char *name)
{
	const char *text = phys_to_virt(m->phys_start), *why = NULL;
	size_t len = m->phys_end - m->phys_start;
	char reason[160];
	uint32_t size;
	struct trace_session *s = NULL;

	if (anon.session) {
		printk("boot module %s: refused: %s is the anonymous trace already (one at a time)\n",
		       name, anon.source);
		return;
	}
	/* The claim's reply carries the JSON after the EPIDs: it must fit one answer. */
	if (len > CHAN_MAX_PAYLOAD / 2) {
		printk("boot module %s: refused: %zu bytes, more than an answer carries (%u)\n",
		       name, len, CHAN_MAX_PAYLOAD / 2);
		return;
	}
	uint8_t *object = decode_object(text, len, &size, &why);
	if (!object) {
		printk("boot module %s: refused: %s\n", name, why);
		return;
	}
	int err = trace_session_create(object, size, &s, reason, sizeof(reason));
	kfree(object);
	if (!err && (err = trace_session_start(s, NULL, reason, sizeof(reason))))
		trace_session_destroy(s);
	if (err) {
		printk("boot module %s: refused: %s\n", name, reason);
		return;
	}
	anon.json = kmalloc(len);
	if (!anon.json) {
		trace_session_stop(s);
		trace_session_destroy(s);
		printk("boot module %s: refused: no memory to keep the program\n", name);
		return;
	}
	memcpy(anon.json, text, len);
	anon.json_len = (uint32_t)len;
	anon.session = s;
	snprintf(anon.source, sizeof(anon.source), "%s", name);
	uint32_t n = trace_session_necbs(s);
	printk("boot module %s: anonymous tracing on %u probe%s (scion trace -a claims it)\n",
	       name, n, n == 1 ? "" : "s");
}

void trace_anon_boot(void)
{
	char name[sizeof(boot_info.modules[0].cmdline)];
	for (unsigned i = 0; i < boot_info.nmodules; i++) {
		const struct boot_module *m = &boot_info.modules[i];
		if (!boot_module_is_anonymous_trace(m))
			continue;
		boot_module_name(m, name, sizeof(name));
		enable(m, name);
	}
}

int trace_anon_request(uint32_t seq, const uint8_t *body, uint32_t len)
{
	struct chan_trace_start_request req;
	char why[160];

	if (len != sizeof(req)) {
		channel_error(seq, -EINVAL, "trace -a: give a struct chan_trace_start_request and "
			      "nothing after it");
		return -EINVAL;
	}
	if (!anon.session) {
		channel_error(seq, -ENOENT, "trace -a: no anonymous tracing to claim (boot with a "
			      ".anon module: make run ANON=SCRIPT.d)");
		return -ENOENT;
	}
	memcpy(&req, body, sizeof(req));
	chan_wire_from_le(CHAN_WIRE(chan_trace_start_request), &req, 1);
	int err = trace_stream_claim(seq, anon.session, req.switch_ms, anon.json, anon.json_len,
				     why, sizeof(why));
	if (err) {
		channel_error(seq, err, "trace -a: %s", why);
		return err;
	}
	/* The stream owns the session now; the JSON went out with the answer. */
	anon.session = NULL;
	kfree(anon.json);
	anon.json = NULL;
	return 0;
}
