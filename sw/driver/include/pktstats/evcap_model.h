/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reference model of the event-capture block (rtl/evcap/evcap_core.v), clock by clock, as
 * specified in docs/evcap-architecture.md. Given the same inputs in every clock, it produces the
 * same AXI4-Stream output in the same clocks as the RTL, bit for bit, and the same counters.
 *
 * Usage, once per clock:
 *     evcap_model_outputs(m, &out);          outputs of the current cycle (depend on state only)
 *     evcap_model_step(m, &config, &inputs); advance to the next cycle (the clock edge)
 */
#ifndef PKTSTATS_EVCAP_MODEL_H
#define PKTSTATS_EVCAP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "pktstats/format.h"

#ifdef __cplusplus
extern "C" {
#endif

struct evcap_model;

/* Elaboration parameters of evcap_core; must match the RTL instance being compared. */
struct evcap_model_params {
	unsigned queue_size_width;         /* QUEUE_SIZE_WIDTH, 1..32 */
	unsigned record_fifo_depth_log2;   /* RECORD_FIFO_DEPTH_LOG2 */
	unsigned packet_ram_depth_log2;    /* PACKET_RAM_DEPTH_LOG2 (ring, 64-bit words) */
	unsigned descriptor_fifo_depth_log2; /* DESCRIPTOR_FIFO_DEPTH_LOG2 */
};

/* The defaults of evcap_core. */
void evcap_model_default_params(struct evcap_model_params *params);

/* Configuration inputs of evcap_core (the register block's outputs), sampled every clock. */
struct evcap_model_config {
	bool enable;
	uint8_t resolution;  /* 0..7 */
	uint8_t queue_mask;  /* bit q: queue q */
	uint8_t event_mask;  /* bit 0 arrival, 1 departure, 2 drop */
	uint8_t output_ports;
	uint64_t destination_mac; /* low 48 bits */
	uint64_t source_mac;
	uint32_t source_ip;
	uint32_t destination_ip;
	uint8_t tos;
	uint8_t ttl;
	uint16_t udp_source_port;
	uint16_t udp_destination_port;
	uint16_t max_length;    /* IP total length; clamped to [86, 9000] at packet open */
	uint32_t flush_timeout; /* clock cycles, 0 = never */
	uint64_t timer_preset;
};

/* Per-clock inputs of evcap_core. */
struct evcap_model_inputs {
	uint8_t arrival;   /* strobe bit q: queue q */
	uint8_t departure;
	uint8_t drop;
	uint16_t arrival_length[PKTSTATS_QUEUES];   /* 64-bit words */
	uint16_t departure_length[PKTSTATS_QUEUES];
	uint16_t drop_length[PKTSTATS_QUEUES];
	uint32_t occupancy[PKTSTATS_QUEUES];        /* before this clock's events */
	bool flush;         /* one-clock command pulses */
	bool timer_reset;
	bool timer_load;
	bool clear_events_missed;
	bool clear_events_sent;
	bool clear_packets_sent;
	bool tready;
};

/* Outputs of evcap_core in the current cycle. */
struct evcap_model_outputs {
	bool tvalid;
	uint64_t tdata;
	uint8_t tkeep;
	bool tlast;
	uint8_t tuser;
	uint64_t timer;
	uint64_t events_missed;
	uint64_t events_sent;
	uint64_t packets_sent;
};

/* Returns 0, -EINVAL for bad parameters, -ENOMEM. */
int evcap_model_create(const struct evcap_model_params *params, struct evcap_model **model);
void evcap_model_destroy(struct evcap_model *model);

void evcap_model_outputs(const struct evcap_model *model, struct evcap_model_outputs *out);
void evcap_model_step(struct evcap_model *model, const struct evcap_model_config *config,
		      const struct evcap_model_inputs *inputs);

/*
 * Test hook: sets the sequence number the serializer gives the next packet it closes, like
 * forcing the RTL's serializer seq_reg; lets a harness reach the 2^32 wrap.
 */
void evcap_model_set_sequence(struct evcap_model *model, uint32_t sequence);

/*
 * Optional observer: called from evcap_model_step when the intake drops the record of input
 * cycle `cycle` (cycles counted from 0 at creation) holding `events` event bits
 * (bit 3*q + t, t: 0 arrival, 1 departure, 2 drop). Lets a harness know which stimulus events
 * were missed.
 */
typedef void (*evcap_model_miss_fn)(void *context, uint64_t cycle, uint32_t events);
void evcap_model_set_miss_observer(struct evcap_model *model, evcap_model_miss_fn fn,
				   void *context);

#ifdef __cplusplus
}
#endif

#endif
