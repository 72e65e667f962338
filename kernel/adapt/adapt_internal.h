/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The adaptation loop (issue 26, VINO's closed loop) for the block
 * cache's eviction policy: detect a low hit ratio (detect.c), record the
 * cache's trace and log into the kernel's store, simulate every
 * candidate policy and the optimum on it, install the best one if it
 * beats the live policy by the margin, watch the live ratio and revert
 * when it got worse (loop.c, decide.c); every step is logged (log.c) and
 * the shell drives it (cmd_adapt.c); each decision is also kept as a
 * structured record for the host (decisions.c).
 *
 * Invariants: at most one decision is in progress (the loop thread's);
 * the loop has at most one install in force (adapt.installed, a policy
 * pair at bcache.evict and bcache.readahead) and removes only that or
 * puts back the pair it replaced.
 * Lock order: adapt.lock -> the recording store's and graft locks
 * (scion/record.h, scion/graft.h); adapt_log_lock (a spinlock) is taken
 * last and never held across anything else.
 */
#ifndef KERNEL_ADAPT_INTERNAL_H
#define KERNEL_ADAPT_INTERNAL_H

#include <scion/compiler.h>
#include <scion/mutex.h>
#include <scion/graft.h>
#include "../insitu/bcache_replay.h"
#include <scion/chan_reply.h>

#define ADAPT_TICK_MS		100	/* how often the loop thread looks */
#define ADAPT_WINDOW_MAX	100	/* samples in the sliding window (10 s) */
#define ADAPT_CANDIDATES_MAX	16	/* policy pairs simulated per decision */
#define ADAPT_NAME_MAX		72	/* a pair's short name: "clock+recorded" */
#define ADAPT_WHY_MAX		200	/* a row's failure, one line */
#define ADAPT_RECHECK_SHIFT_MAX	4	/* rechecks back off to 16 times recheck_ms */
#define ADAPT_TRACES_KEPT	16	/* decisions' recordings kept in the store */
#define ADAPT_BLACKLIST_MAX	4
#define ADAPT_HOUR_NS		(3600ULL * 1000000000ULL)

enum adapt_mode { ADAPT_OFF, ADAPT_ON, ADAPT_DRY_RUN };
/* The module a decision is about: the rule and bcache.* red flags, or sched.* red flags. */
enum adapt_module { ADAPT_MODULE_BCACHE, ADAPT_MODULE_SCHED };
enum adapt_phase { ADAPT_DETECTING, ADAPT_RECORDING, ADAPT_WATCHING };

/* The rule `adapt rule bcache.hit_ratio < 0.60 for 2s`, and the loop's limits. */
struct adapt_config {
	uint32_t threshold_permille;	/* flag when the window's hit ratio is below */
	uint32_t window_ms;		/* the rule's "for": the sliding window's length */
	uint32_t min_reads;		/* reads the window needs before it is judged */
	uint32_t record_reads;		/* demand reads a recording covers */
	uint32_t record_max_ms;		/* ... or this long, whichever comes first */
	uint32_t margin_permille;	/* of requests: what a candidate must win by */
	uint32_t watch_reads;		/* demand reads watched after an install */
	uint32_t dwell_ms;		/* minimum time between two decisions */
	uint32_t blacklist_ms;		/* how long a reverted candidate is not tried */
	uint32_t recheck_ms;		/* a settled loop looks again after this long */
	uint32_t keep_logs;		/* 1: keep each simulated row's log as a recording */
	uint32_t sched_record_ms;	/* a scheduler recording's length (and its watch's) */
	uint32_t scope_permille;	/* a process with this share of requests gets the graft */
	uint32_t recordings_per_hour, installs_per_hour;
};

/* One sample of the block cache's totals. */
struct adapt_sample {
	uint64_t reads, hits;
};

struct adapt_blacklisted {
	char name[ADAPT_NAME_MAX];	/* a pair's short name */
	uint64_t until_ns;
};

struct adapt_state {
	struct mutex lock;
	enum adapt_mode mode;			/* lock */
	enum adapt_phase phase;			/* lock */
	enum adapt_module module;		/* lock: the module of the decision under way */
	struct adapt_config cfg;		/* lock */
	bool thread_started;			/* lock */
	struct adapt_sample window[ADAPT_WINDOW_MAX];	/* lock: a ring, newest at next - 1 */
	unsigned next, filled;			/* lock */
	uint64_t decisions;			/* lock: numbered from 1 */
	uint64_t quiet_until_ns;		/* lock: the dwell after a decision */
	struct adapt_sample phase_start;	/* lock: totals when recording/watching began */
	uint64_t phase_start_ns;		/* lock */
	uint32_t ratio_before_permille;		/* lock: the window's ratio at the flag */
	bool have_installed;			/* lock: the loop's install is in force */
	struct sim_policy_names installed;	/* lock: the pair the loop installed */
	struct sim_policy_names replaced;	/* lock: the pair it replaced */
	uint64_t installed_tid, installed_pid;	/* lock: its scope (0: every thread) */
	bool settled;				/* lock: a decision left the live pair as best */
	uint32_t settled_permille;		/* lock: the live ratio it was settled at */
	uint64_t settled_ns;			/* lock: when it settled */
	unsigned recheck_shift;			/* lock: rechecks wait recheck_ms << this */
	unsigned settled_streak;		/* lock: decisions in a row that changed nothing */
	bool ratio_before_known;		/* lock: ratio_before was judged at the flag */
	bool have_sched_installed;		/* lock: the loop's pick-next policy is in force */
	char sched_installed[GRAFT_NAME_MAX];	/* lock: it */
	char sched_replaced[GRAFT_NAME_MAX];	/* lock: the one it replaced */
	uint64_t sched_before_permille;		/* lock: the live worst slowdown before it */
	uint64_t flag_reads;			/* lock: the reads of the flag's window */
	struct adapt_blacklisted blacklist[ADAPT_BLACKLIST_MAX];	/* lock */
	uint64_t hour_start_ns;			/* lock: the limits' hour */
	uint32_t recordings_this_hour, installs_this_hour;	/* lock */
	uint64_t flags, recordings, installs, reverts, refusals;	/* lock: since boot */
	uint64_t ticks;				/* lock: the loop's ticks since boot */
	unsigned traces[ADAPT_TRACES_KEPT];	/* lock: the last decisions' recordings (0: none) */
	unsigned traces_next;			/* lock: the oldest, replaced next */
};

extern struct adapt_state adapt;

/* detect.c: the sliding window and the rule. adapt.lock held. */
void adapt_window_reset(void);
void adapt_window_sample(const struct adapt_sample *now);
/* The window's ratio in permille, false when it is not judged yet (too few reads). */
bool adapt_window_ratio(uint32_t *permille, uint64_t *reads);
/* Subscribe to the monitor's red flags (once); a bcache.* flag is kept until taken. */
int adapt_redflag_subscribe(void);
/* The red flag noted since the last call, as one line into line, and its module; false if none. */
bool adapt_redflag_take(char *line, size_t n, enum adapt_module *module);
/* Parse the words after `adapt rule`: false with why filled. */
bool adapt_rule_parse(int argc, char **argv, struct adapt_config *cfg, char *why, size_t whylen);
/* permille as "0.600". */
void adapt_format_ratio(char *buf, size_t n, uint32_t permille);

/* decide.c: steps 3 to 5 (evaluate, decide, install) on a recording, and the watch's verdict. */
void adapt_evaluate_and_decide(unsigned rec_id);
void adapt_watch_verdict(uint32_t after_permille, uint64_t reads);
bool adapt_blacklisted(const char *name, uint64_t now_ns);
void adapt_blacklist(const char *name, uint64_t until_ns);
/* True (the refusal logged and decision n ended) when the installs-an-hour limit is reached. */
bool adapt_install_refused(uint64_t n, const char *winner, uint64_t margin);

/* sched.c: the scheduler example's steps 3 to 5 on a recording, and its watch's verdict. */
void adapt_sched_evaluate_and_decide(unsigned rec_id);
void adapt_sched_watch_verdict(unsigned rec_id);

/*
 * evaluate.c: simulate rows spec[0 .. rows) of recording r (one user
 * held) into out[] and err[] (0, or -errno with why[] filled), one worker
 * thread per CPU. Return value: the workers used. Thread, may sleep.
 */
struct recording;
struct sim_model;
struct sim_outcome;
unsigned adapt_simulate_rows(struct recording *r, const struct sim_model *model,
			     const char (*spec)[REC_POLICY_MAX], unsigned rows,
			     struct sim_outcome *out, int *err, char (*why)[ADAPT_WHY_MAX]);

/* A list of policy names, each once (candidates.c). */
struct adapt_names {
	unsigned n;
	char name[ADAPT_CANDIDATES_MAX][GRAFT_NAME_MAX];
};
/* Add name unless it is there already or the list is full. */
void adapt_names_add(struct adapt_names *s, const char *name);

/* candidates.c: policy pairs (eviction, read-ahead). adapt.lock held. */
void adapt_pair_short(const struct sim_policy_names *p, char *buf, size_t n);
void adapt_pair_live(struct sim_policy_names *p);
bool adapt_pair_equal(const struct sim_policy_names *a, const struct sim_policy_names *b);
/* The live pair, then every other pair of loaded policies, at most max; *readaheads: kinds. */
unsigned adapt_pairs(const struct sim_policy_names *live, struct sim_policy_names *out,
		     unsigned max, unsigned *readaheads);
/* Switch from to to (for thread tid alone when not 0): 0, or -errno with from in force. */
int adapt_pair_switch(const struct sim_policy_names *from, const struct sim_policy_names *to,
		      uint64_t tid, char *why, size_t whylen);
/*
 * Make to (a graft's name, or dflt for the point's default) the policy at
 * point for every thread, in place of from: 0, or -errno with from in force.
 */
int adapt_point_switch(const char *point, const char *dflt, const char *from, const char *to,
		       char *why, size_t whylen);
/* Remove p's grafts installed for thread tid. */
void adapt_pair_unscope(const struct sim_policy_names *p, uint64_t tid);

/* loop.c */
int adapt_set_mode(enum adapt_mode mode);
const char *adapt_mode_name(enum adapt_mode mode);
const char *adapt_phase_name(enum adapt_phase phase);

/*
 * decisions.c: decision n as a structured record (scion/chan_reply.h's
 * struct chan_adapt_decision and its rows), one call next to each step's
 * adapt_log: begin at the flag, recording when the trace is stopped,
 * row per simulated policy (role "live", "candidate" or "optimum"), end
 * with the outcome (enum chan_adapt_outcome), its reason (enum
 * chan_adapt_reason), the policy chosen ("" or NULL: none) and the
 * margin in hits, watch with the verdict (CHAN_ADAPT_KEPT, _REVERTED,
 * _REVERT_FAILED). adapt.lock held (the ring's spinlock is taken inside).
 */
struct sim_outcome;
struct sched_outcome;
void adapt_decision_begin(uint64_t n, uint32_t ratio_permille, uint32_t threshold_permille,
			  uint64_t reads, uint32_t module);
void adapt_decision_recording(uint64_t n, unsigned rec_id, uint64_t requests);
/* The latency model decision n's rows were priced by (calibrated, or the last one). */
void adapt_decision_model(uint64_t n, uint64_t hit_ns, uint64_t miss_ns);
void adapt_decision_row(uint64_t n, const char *role, const struct sim_outcome *o);
void adapt_decision_sched_row(uint64_t n, const char *role, const struct sched_outcome *o);
void adapt_decision_end(uint64_t n, uint32_t outcome, uint32_t reason, const char *chosen,
			uint64_t margin);
void adapt_decision_watch(uint64_t n, uint32_t verdict, uint32_t before_permille,
			  uint32_t after_permille, uint64_t reads);

/* log.c: one step of decision n: the kernel log, the ring (`adapt log`). Any context but IRQ. */
void adapt_log(uint64_t n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void adapt_log_print(void);

#endif
