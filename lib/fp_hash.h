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

/* One 8-byte step: of the single lane, and of each of the four. */
static inline uint64_t fp_hash_step(uint64_t h, const char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	h = (h ^ w) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static inline uint64_t fp_hash_bytes(const char *s, size_t n)
{
	const uint64_t mul = 0x9e3779b97f4a7c15ull;
	uint64_t h = 0xcbf29ce484222325ull ^ (n * mul);

	/* Long strings (a sample's stack: ~700 bytes) in four independent
	 * lanes of 8 bytes: one lane's multiply waits on the one before, four
	 * keep the multiplier busy. */
	if (n >= 64) {
		uint64_t h1 = h ^ 0x6a09e667f3bcc909ull, h2 = h ^ 0xbb67ae8584caa73bull,
			 h3 = h ^ 0x3c6ef372fe94f82bull;

		for (; n >= 32; s += 32, n -= 32) {
			h = fp_hash_step(h, s);
			h1 = fp_hash_step(h1, s + 8);
			h2 = fp_hash_step(h2, s + 16);
			h3 = fp_hash_step(h3, s + 24);
		}
		h = (h ^ h1) * mul;
		h = (h ^ h2) * mul;
		h = (h ^ h3) * mul;
	}
	for (; n >= 8; s += 8, n -= 8)
		h = fp_hash_step(h, s);
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
