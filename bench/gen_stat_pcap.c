/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen_stat_pcap: writes a large pcap of valid version-2 stat packets, for the decode benchmark
 * (bench/bench_decode.py, `make bench`).
 *
 *   gen_stat_pcap OUTPUT.pcap EVENTS [SEED]
 *
 * The packets follow docs/packet-format.md as the hardware packs them, written directly
 * (the hardware's reference model would also do, but it steps clock by clock and would take
 * minutes for 10^7 events; this writer produces the same format at disk speed):
 *
 *   - A switch-like event stream: 8 queues, each with an occupancy and a limit of 2,000 words;
 *     arrivals of IMIX lengths (64, 570 and 1500 bytes, 7:4:1, in 64-bit words rounded up),
 *     departures of the frames queued, oldest first (a FIFO, as the switch's queues are, so
 *     that the sojourn matcher pairs every one), drops when a queue is full. Each busy clock carries the
 *     events of 1 to 3 queues, in queue order, arrival before departure before drop.
 *   - Gaps between busy clocks: 70% 1..20 clocks (bursts), 28% up to 4 us, 2% up to 164 us,
 *     and 1 in 10,000 of 2^19 to 3 x 2^19 clocks (4 to 13 ms), which at c = 0 is 2^19 ticks
 *     or more: the packer inserts a timestamp. The flush timeout is 20 ms (a register; its
 *     default, 1 ms, would close the packet first at c = 0, and no timestamp would ever be
 *     inserted). Most packets fill up (358 slots); a few close at the timeout. The resolution changes every 500,000 events among c = 0, 0, 3, 7 (a change
 *     closes the packet, as in the hardware).
 *   - Packets of at most max_length 1500 bytes (358 slots), closed when the next queue's events
 *     of a clock would not fit, or at the flush timeout counted from the packet's first event; a queue's events of one clock never straddle two packets. Queue sizes in each
 *     header are the occupancies before the packet's first event; sequence numbers from 0.
 *
 * Prints "packets EVENTS-IN-FILE events" on stdout. Exit 0, 1 on I/O error, 2 on usage.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUEUES 8
#define MAX_LENGTH 1500                   /* IP total length, the hardware's default */
#define MAX_SLOTS ((MAX_LENGTH - 66) / 4) /* 358 */
#define GAP_LIMIT (1u << 19)
#define LIMIT_WORDS 2000
#define FLUSH_CLOCKS 2500000 /* 20 ms (register flush_timeout; default 1 ms) */
#define C_PERIOD 500000     /* events between resolution changes */

static uint64_t rng_state;

static uint64_t rnd(void) /* xorshift64*: fast, seeded, good enough for a workload */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static unsigned below(unsigned n)
{
	return (unsigned)((rnd() >> 32) % n);
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

/* The packet being built. */
static uint8_t frame[14 + 20 + 8 + 38 + 4 * MAX_SLOTS];
static unsigned n_slots;            /* slots so far */
static uint64_t first_clock;        /* clock of the packet's first event */
static uint64_t last_tick;          /* tick of the packet's previous event */
static uint32_t sequence;
static uint64_t packets, events_written, events_in_packet;
static FILE *out;

static void pcap_header(void)
{
	const uint32_t h[6] = {0xa1b2c3d4, 2 | 4u << 16, 0, 0, 65535, 1};
	fwrite(h, sizeof(h), 1, out); /* little-endian host: the magic tells the byte order */
}

static void open_packet(unsigned c, uint64_t clock, const int64_t *occupancy)
{
	uint8_t *p = frame + 42;
	uint64_t tick = (clock >> c) & ((UINT64_C(1) << 62) - 1);

	p[0] = (uint8_t)(c << 4 | 2);
	p[1] = 3;
	put32(p + 2, sequence);
	for (int q = 0; q < QUEUES; q++)
		put32(p + 6 + 4 * q, (uint32_t)occupancy[q]);
	put32(p + 38, (uint32_t)(tick >> 32));
	put32(p + 42, (uint32_t)tick);
	n_slots = 2;
	first_clock = clock;
	last_tick = tick;
	events_in_packet = 0;
}

static int close_packet(uint64_t clock)
{
	static const uint8_t eth[14] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, 0x10,
					0x08, 0x00};
	uint8_t *ip = frame + 14, *udp = frame + 34;
	unsigned total = 66 + 4 * n_slots, sum = 0;
	uint64_t ns = clock * 8;
	uint32_t rec[4] = {(uint32_t)(ns / 1000000000u), (uint32_t)(ns % 1000000000u / 1000u),
			   14 + total, 14 + total};

	if (events_in_packet == 0)
		return 0;
	memcpy(frame, eth, sizeof(eth));
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)total);
	put16(ip + 4, (uint16_t)sequence);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, 0x0a000001);
	put32(ip + 16, 0xffffffff);
	for (int i = 0; i < 20; i += 2)
		sum += (unsigned)ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	put16(ip + 10, (uint16_t)~sum);
	put16(udp, 27033);
	put16(udp + 2, 27033);
	put16(udp + 4, (uint16_t)(total - 20));
	put16(udp + 6, 0);
	if (fwrite(rec, sizeof(rec), 1, out) != 1 || fwrite(frame, 14 + total, 1, out) != 1)
		return -1;
	packets++;
	events_written += events_in_packet;
	sequence++;
	events_in_packet = 0;
	return 0;
}

static unsigned imix_words(void)
{
	unsigned r = below(12);
	return r < 7 ? 8 : r < 11 ? 72 : 188; /* 64, 570, 1500 bytes */
}

int main(int argc, char **argv)
{
	static const unsigned resolutions[4] = {0, 0, 3, 7};
	int64_t occupancy[QUEUES] = {0};
	/* Each queue's frames, oldest first: at most LIMIT_WORDS / 8 (the shortest frame) */
	static unsigned queued[QUEUES][256];
	unsigned head[QUEUES] = {0}, count[QUEUES] = {0};
	uint64_t target, clock = UINT64_C(1000000000), generated = 0;
	unsigned c = 0;
	int open = 0;

	if (argc < 3 || argc > 4) {
		fprintf(stderr, "usage: gen_stat_pcap OUTPUT.pcap EVENTS [SEED]\n");
		return 2;
	}
	target = strtoull(argv[2], NULL, 0);
	rng_state = argc == 4 ? strtoull(argv[3], NULL, 0) | 1 : UINT64_C(0x9e3779b97f4a7c15);
	out = fopen(argv[1], "wb");
	if (!out) {
		perror(argv[1]);
		return 1;
	}
	pcap_header();
	while (generated < target) {
		/* The next busy clock. */
		unsigned r = below(10000);
		clock += r < 7000 ? below(20) + 1 : r < 9800 ? below(500) + 20
		       : r < 9999 ? below(20000) + 500 : GAP_LIMIT + below(1u << 20);
		/* Resolution change: closes the packet. */
		unsigned want = resolutions[(generated / C_PERIOD) % 4];
		if (want != c) {
			if (open && close_packet(clock))
				goto io_error;
			open = 0;
			c = want;
		}
		if (open && clock - first_clock >= FLUSH_CLOCKS) {
			if (close_packet(first_clock + FLUSH_CLOCKS))
				goto io_error;
			open = 0;
		}
		/* The queues busy in this clock, in queue order. */
		unsigned busy = below(3) + 1, start = below(QUEUES);
		uint8_t mask = 0;
		for (unsigned k = 0; k < busy; k++)
			mask |= (uint8_t)(1u << ((start + k * 3) % QUEUES));
		for (unsigned q = 0; q < QUEUES; q++) {
			uint32_t slot[3];
			unsigned n = 0;

			if (!(mask & (1u << q)))
				continue;
			/* arrival or drop, then maybe a departure */
			unsigned words = imix_words();
			int arrive = below(2) == 0 || occupancy[q] == 0;
			int drop = arrive && occupancy[q] + words > LIMIT_WORDS;
			/* the oldest frame, never one committed in this clock */
			unsigned dep = count[q] > 0 && below(2) == 0 ? queued[q][head[q]] : 0;
			if (arrive && !drop)
				slot[n++] = 1u << 30 | q << 27 | words << 19;
			if (dep)
				slot[n++] = 2u << 30 | q << 27 | dep << 19;
			if (drop)
				slot[n++] = 3u << 30 | q << 27 | words << 19;
			if (n == 0)
				continue;

			uint64_t tick = (clock >> c) & ((UINT64_C(1) << 62) - 1);
			if (!open) {
				open_packet(c, clock, occupancy);
				open = 1;
			}
			int need_ts = tick - last_tick >= GAP_LIMIT;
			if (n_slots + n + (need_ts ? 2 : 0) > MAX_SLOTS) {
				if (close_packet(clock))
					goto io_error;
				open_packet(c, clock, occupancy);
				need_ts = 0;
			}
			uint8_t *p = frame + 80 + 4 * n_slots;
			uint32_t gap = (uint32_t)(tick - last_tick);
			if (need_ts) {
				put32(p, (uint32_t)(tick >> 32));
				put32(p + 4, (uint32_t)tick);
				p += 8;
				n_slots += 2;
				gap = 0;
			}
			for (unsigned i = 0; i < n; i++) {
				put32(p + 4 * i, slot[i] | (i == 0 ? gap : 0));
			}
			n_slots += n;
			events_in_packet += n;
			generated += n;
			last_tick = tick;
			if (dep) {
				head[q] = (head[q] + 1) % 256;
				count[q]--;
			}
			if (arrive && !drop) {
				queued[q][(head[q] + count[q]++) % 256] = words;
				occupancy[q] += words;
			}
			occupancy[q] -= dep;
		}
	}
	if (open && close_packet(clock))
		goto io_error;
	if (fclose(out) != 0) {
		perror(argv[1]);
		return 1;
	}
	printf("%" PRIu64 " packets %" PRIu64 " events\n", packets, events_written);
	return 0;
io_error:
	perror(argv[1]);
	return 1;
}
