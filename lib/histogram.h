/* SPDX-License-Identifier: ISC */
/*
 * Latency histograms with power-of-two microsecond buckets: cheap to record
 * on the event loop, good enough for percentiles and Prometheus buckets.
 */
#ifndef EGRESSD_HISTOGRAM_H
#define EGRESSD_HISTOGRAM_H

#include <stdint.h>

#define HISTOGRAM_BUCKETS 24 /* 1 us .. 2^23 us (8.4 s), then overflow */

struct histogram {
	uint64_t count;
	uint64_t sum_us;
	uint64_t bucket[HISTOGRAM_BUCKETS + 1]; /* [i]: value < 2^i us */
};

static inline void
histogram_add(struct histogram *h, uint64_t us)
{
	unsigned i = 0;

	while (i < HISTOGRAM_BUCKETS && us >= (UINT64_C(1) << i))
		i++;
	h->bucket[i]++;
	h->count++;
	h->sum_us += us;
}

/* Upper bound of bucket i in microseconds (UINT64_MAX for overflow). */
static inline uint64_t
histogram_bound_us(unsigned i)
{
	return i < HISTOGRAM_BUCKETS ? (UINT64_C(1) << i) : UINT64_MAX;
}

/* The bucket bound at or below which fraction q (0..1) of samples lie. */
static inline uint64_t
histogram_quantile_us(const struct histogram *h, double q)
{
	uint64_t want = (uint64_t)(q * (double)h->count + 0.5), seen = 0;
	unsigned i;

	if (h->count == 0)
		return 0;
	if (want == 0)
		want = 1;
	for (i = 0; i <= HISTOGRAM_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= want)
			return histogram_bound_us(i);
	}
	return histogram_bound_us(HISTOGRAM_BUCKETS);
}

#endif
