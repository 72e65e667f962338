// SPDX-License-Identifier: BSD-2-Clause
/*
 * In-kernel tests of self-removing block coverage (scion/coverage.h) on
 * the CFG fixtures, whose blocks are known (cfg_fixtures.S): a scripted
 * input reaches exactly its blocks, the splices of reached blocks come
 * out (by an explicit reap and by the reaper thread), a stop takes out
 * the rest, and the text is byte for byte what it was.
 */
#include <scion/ktest.h>
#include <scion/coverage.h>
#include <scion/cfg.h>
#include <scion/sched.h>
#include <scion/clock.h>
#include <scion/string.h>
#include <scion/errno.h>
#include <scion/shell.h>
#include <scion/printk.h>

long cfg_fix_loop(long n);
int cfg_fix_returns(int x);

/* Blocks of the two fixtures, in address order (cfg_fix_loop comes first). */
#define LOOP_BLOCKS    3	/* entry, loop, return */
#define RETURNS_BLOCKS 5	/* x == 1?, x == 2?, return 0, return 1, return 2 */
#define BLOCKS         (LOOP_BLOCKS + RETURNS_BLOCKS)
#define TEXT_BYTES     64

static const char *const fixtures[] = { "cfg_fix_returns", "cfg_fix_loop" };

struct seen {
	enum coverage_state state[BLOCKS];
	uint64_t start[BLOCKS];
	unsigned n;
};

static bool collect(const struct coverage_block *b, void *arg)
{
	struct seen *s = arg;
	if (s->n < BLOCKS) {
		s->state[s->n] = b->state;
		s->start[s->n] = b->start;
	}
	s->n++;
	return true;
}

static void expect_states(struct ktest_ctx *t, const char *when, const enum coverage_state *want)
{
	struct seen s = { .n = 0 };
	coverage_foreach_block(collect, &s);
	KT_ASSERT(t, s.n == BLOCKS, "%s: %u blocks, want %u", when, s.n, BLOCKS);
	for (unsigned i = 0; i < BLOCKS; i++)
		KT_EXPECT(t, s.state[i] == want[i], "%s: block %u at %#llx is %s, want %s", when, i,
			  (unsigned long long)s.start[i], coverage_state_name(s.state[i]),
			  coverage_state_name(want[i]));
}

static void save_text(uint8_t *loop, uint8_t *returns)
{
	memcpy(loop, (const void *)(uintptr_t)cfg_fix_loop, TEXT_BYTES);
	memcpy(returns, (const void *)(uintptr_t)cfg_fix_returns, TEXT_BYTES);
}

/* The first offset where the fixtures' text differs from the copies, or -1. */
static int text_differs(const uint8_t *loop, const uint8_t *returns)
{
	const uint8_t *now[2] = { (const uint8_t *)(uintptr_t)cfg_fix_loop,
				  (const uint8_t *)(uintptr_t)cfg_fix_returns };
	const uint8_t *was[2] = { loop, returns };
	for (int f = 0; f < 2; f++) {
		size_t size = cfg_function_at((uintptr_t)now[f])->sym->size;
		for (size_t i = 0; i < size && i < TEXT_BYTES; i++)
			if (now[f][i] != was[f][i])
				return f * TEXT_BYTES + (int)i;
	}
	return -1;
}

KTEST_NEEDS(probe_coverage_reaches_exactly_the_input_blocks, 1, FEATURE_PROBES)
{
	const enum coverage_state A = COVERAGE_ARMED, H = COVERAGE_HIT, M = COVERAGE_MISSED;
	static uint8_t loop_text[TEXT_BYTES], returns_text[TEXT_BYTES];
	const char *why = "";

	save_text(loop_text, returns_text);
	int armed = coverage_start(fixtures, 2, 0, &why);
	KT_ASSERT(t, armed == BLOCKS, "start: %d blocks armed (%s), want %d", armed, why, BLOCKS);
	struct coverage_stats st;
	coverage_get_stats(&st);
	KT_EXPECT(t, st.running && st.functions == 2 && st.blocks == BLOCKS && !st.unprobed,
		  "stats: running %d, %u functions, %u blocks, %u unprobed", st.running,
		  st.functions, st.blocks, st.unprobed);
	KT_EXPECT(t, text_differs(loop_text, returns_text) >= 0,
		  "armed splices left the text as it was");
	KT_EXPECT(t, coverage_start(fixtures, 1, 0, &why) == -EBUSY,
		  "a second start while one runs");

	/* The input: returns(2) takes x == 1?, x == 2?, return 2; loop(0) entry, return. */
	KT_EXPECT(t, cfg_fix_returns(2) == 2 && cfg_fix_loop(0) == 0, "fixtures' results changed");
	const enum coverage_state after_reap[BLOCKS] = { H, A, H, H, H, A, A, H };
	unsigned out = coverage_reap();
	KT_EXPECT(t, out == 5, "reap took out %u splices, want 5", out);
	expect_states(t, "after the reap", after_reap);

	/* Reached blocks cost nothing now; running them again changes nothing. */
	KT_EXPECT(t, cfg_fix_returns(2) == 2 && coverage_reap() == 0, "a second reap found work");
	KT_EXPECT(t, cfg_fix_loop(3) == 6, "loop(3) under its remaining splice");

	KT_ASSERT(t, coverage_stop() == 0, "stop failed");
	const enum coverage_state after_stop[BLOCKS] = { H, H, H, H, H, M, M, H };
	expect_states(t, "after the stop", after_stop);
	int at = text_differs(loop_text, returns_text);
	KT_EXPECT(t, at < 0, "the text differs after the stop (byte %d)", at);
	KT_EXPECT(t, coverage_stop() == -ENOENT, "a stop with no run on");
	coverage_get_stats(&st);
	KT_EXPECT(t, !st.running && st.hit == 6 && st.missed == 2 && !st.armed,
		  "final stats: %u hit, %u missed, %u armed", st.hit, st.missed, st.armed);
}

KTEST_NEEDS(probe_coverage_reaper_takes_hit_splices_out, 1, FEATURE_PROBES)
{
	const enum coverage_state A = COVERAGE_ARMED, H = COVERAGE_HIT, M = COVERAGE_MISSED;
	static uint8_t loop_text[TEXT_BYTES], returns_text[TEXT_BYTES];
	const char *why = "";

	save_text(loop_text, returns_text);
	/* A second run reuses the probes the first made. */
	KT_ASSERT(t, coverage_start(fixtures, 2, COVERAGE_REAP_MS, &why) == BLOCKS,
		  "start: %s", why);
	KT_EXPECT(t, cfg_fix_returns(1) == 1, "returns(1) changed");
	/* The reaper's rounds, not ours: wait a few of them. */
	struct coverage_stats st = { 0 };
	for (int i = 0; i < 20 && st.hit < 2; i++) {
		thread_sleep_ticks(ms_to_ticks(COVERAGE_REAP_MS));
		coverage_get_stats(&st);
	}
	const enum coverage_state reaped[BLOCKS] = { A, A, A, H, A, A, H, A };
	expect_states(t, "after the reaper's rounds", reaped);
	KT_EXPECT(t, st.reaps >= 1, "no reap counted");
	KT_ASSERT(t, coverage_stop() == 0, "stop failed");
	const enum coverage_state stopped[BLOCKS] = { M, M, M, H, M, M, H, M };
	expect_states(t, "after the stop", stopped);
	int at = text_differs(loop_text, returns_text);
	KT_EXPECT(t, at < 0, "the text differs after the stop (byte %d)", at);
}

KTEST_NEEDS(probe_coverage_refuses_bad_starts, 1, FEATURE_PROBES)
{
	const char *why = "";
	const char *none[] = { "no_such_function_*" };
	KT_EXPECT(t, coverage_start(none, 1, 0, &why) == -ENOENT && *why,
		  "a glob that matches nothing: not -ENOENT");
	KT_EXPECT(t, coverage_stop() == -ENOENT, "a stop after a failed start");
	struct coverage_stats st;
	coverage_get_stats(&st);
	KT_EXPECT(t, !st.running && !st.blocks, "a failed start left %u blocks", st.blocks);
}

/* `cfgfix FUNCTION ARG`: a CFG fixture run on ARG, the input `scion coverage`'s test scripts. */
static int cmd_cfgfix(int argc, char **argv)
{
	uint64_t arg;
	if (argc != 3 || parse_u64(argv[2], &arg, false)) {
		printk("cfgfix: usage: cfgfix cfg_fix_returns|cfg_fix_loop N\n");
		return -EINVAL;
	}
	if (!strcmp(argv[1], "cfg_fix_returns"))
		printk("cfgfix: %d\n", cfg_fix_returns((int)arg));
	else if (!strcmp(argv[1], "cfg_fix_loop"))
		printk("cfgfix: %ld\n", cfg_fix_loop((long)arg));
	else {
		printk("cfgfix: no fixture %s\n", argv[1]);
		return -ENOENT;
	}
	return 0;
}
SHELL_COMMAND(cfgfix, "cfg_fix_returns|cfg_fix_loop N", "run a CFG fixture (tests)", cmd_cfgfix);
