// SPDX-License-Identifier: BSD-2-Clause
/* xoshiro256** (Blackman and Vigna) behind random_bytes (scion/random.h). */
#include <scion/random.h>
#include <scion/spinlock.h>
#include <scion/string.h>
#include <arch/cpu.h>

static struct spinlock random_lock = SPINLOCK_INIT("random");
static uint64_t state[4];	/* random_lock */
static bool seeded;		/* random_lock */

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t next(void)
{
	uint64_t result = rotl(state[1] * 5, 7) * 9, t = state[1] << 17;
	state[2] ^= state[0];
	state[3] ^= state[1];
	state[1] ^= state[2];
	state[0] ^= state[3];
	state[2] ^= t;
	state[3] = rotl(state[3], 45);
	return result;
}

void random_bytes(void *buf, size_t n)
{
	uint8_t *out = buf;
	irqflags_t f = spin_lock_irqsave(&random_lock);
	if (!seeded) {
		uint64_t seed = arch_cycles();
		for (int i = 0; i < 4; i++)
			state[i] = splitmix(&seed);
		seeded = true;
	}
	state[0] ^= arch_cycles();
	while (n) {
		uint64_t v = next();
		size_t k = n < sizeof(v) ? n : sizeof(v);
		memcpy(out, &v, k);
		out += k;
		n -= k;
	}
	spin_unlock_irqrestore(&random_lock, f);
}
