// SPDX-License-Identifier: BSD-3-Clause
/*
 * Bit fields of Verilator's wide ports (VlWide<N>, 32-bit words, bit 0 in word 0), for the
 * harnesses that pack and unpack buses: a field of up to 64 bits at bit lsb.
 */
#ifndef PKTSTATS_TB_WIDE_BITS_H
#define PKTSTATS_TB_WIDE_BITS_H

#include <cstdint>

template <typename Wide> uint64_t get_bits(const Wide &wide, unsigned lsb, unsigned width)
{
	uint64_t value = 0;
	for (unsigned i = 0; i < width; i++) {
		unsigned bit = lsb + i;
		value |= (uint64_t)((wide[bit / 32] >> (bit % 32)) & 1) << i;
	}
	return value;
}

template <typename Wide> void set_bits(Wide &wide, unsigned lsb, unsigned width, uint64_t value)
{
	for (unsigned i = 0; i < width; i++) {
		unsigned bit = lsb + i;
		uint32_t mask = 1u << (bit % 32);
		if ((value >> i) & 1)
			wide[bit / 32] |= mask;
		else
			wide[bit / 32] &= ~mask;
	}
}

#endif
