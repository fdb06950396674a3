/* fp_hash.h: the hash of the stages' string tables (fp-fold's stacks,
 * fp-range's interned tails, fp-render's timeline).
 *
 * 8 bytes per step, then a murmur3 finaliser so the low bits (the slot of
 * an open-addressing table) depend on every input byte. It runs over every
 * byte of every sample's stack, so it is inline: byte-wise FNV-1a took a
 * quarter of fp-render's time. Not for anything persisted or shown: the
 * flame graph colours use render/'s fp_fnv1a, which must never change.
 */
#ifndef FP_HASH_H
#define FP_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The last n (1 .. 7) bytes at s as the low bytes of a word, the others
 * zero: what memcpy into a zeroed word gives (little-endian), in loads that
 * stay inside the n bytes (gcc calls memcpy for a variable n: that call
 * was a sixth of a short name's lookup). */
static inline uint64_t fp_hash_tail(const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	if (n >= 4) {
		uint32_t lo, hi;

		memcpy(&lo, s, 4);
		memcpy(&hi, s + n - 4, 4);
		return (uint64_t)lo | (uint64_t)hi << (8 * (n - 4));
	}
	return (uint64_t)u[0] | (uint64_t)u[n / 2] << (8 * (n / 2)) |
	       (uint64_t)u[n - 1] << (8 * (n - 1));
}

static inline uint64_t fp_hash_bytes(const char *s, size_t n)
{
	const uint64_t mul = 0x9e3779b97f4a7c15ull;
	uint64_t h = 0xcbf29ce484222325ull ^ (n * mul);
	uint64_t w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * mul;
		h ^= h >> 29;
	}
	if (n) {
		h = (h ^ fp_hash_tail(s, n)) * mul;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h;
}

#endif
