// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * librdmachan: the IB static rate conversions of ibv_rate_to_mult(3) and
 * ibv_rate_to_mbps(3). An unknown rate converts to -1, an unknown
 * multiplier or speed to IBV_RATE_MAX.
 */
#include "internal.h"

/* Each rate, its multiple of 2.5 Gb/s (0: none) and its Mb/s. */
static const struct {
	enum ibv_rate rate;
	int mult;
	int mbps;
} rdmachan_rates[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, 0, 14062 },
	{ IBV_RATE_56_GBPS, 0, 56250 },
	{ IBV_RATE_112_GBPS, 0, 112500 },
	{ IBV_RATE_168_GBPS, 0, 168750 },
	{ IBV_RATE_25_GBPS, 0, 25781 },
	{ IBV_RATE_100_GBPS, 0, 103125 },
	{ IBV_RATE_200_GBPS, 0, 206250 },
	{ IBV_RATE_300_GBPS, 0, 309375 },
	{ IBV_RATE_28_GBPS, 0, 28125 },
	{ IBV_RATE_50_GBPS, 0, 53125 },
	{ IBV_RATE_400_GBPS, 0, 425000 },
	{ IBV_RATE_600_GBPS, 0, 637500 },
};

#define RDMACHAN_NR_RATES (sizeof(rdmachan_rates) / sizeof(rdmachan_rates[0]))

RDMACHAN_EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	unsigned int i;

	for (i = 0; i < RDMACHAN_NR_RATES; i++)
		if (rdmachan_rates[i].rate == rate && rdmachan_rates[i].mult)
			return rdmachan_rates[i].mult;
	return -1;
}

RDMACHAN_EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	unsigned int i;

	for (i = 0; i < RDMACHAN_NR_RATES; i++)
		if (mult && rdmachan_rates[i].mult == mult)
			return rdmachan_rates[i].rate;
	return IBV_RATE_MAX;
}

RDMACHAN_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	unsigned int i;

	for (i = 0; i < RDMACHAN_NR_RATES; i++)
		if (rdmachan_rates[i].rate == rate)
			return rdmachan_rates[i].mbps;
	return -1;
}

RDMACHAN_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	unsigned int i;

	for (i = 0; i < RDMACHAN_NR_RATES; i++)
		if (rdmachan_rates[i].mbps == mbps)
			return rdmachan_rates[i].rate;
	return IBV_RATE_MAX;
}
