/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libpktstats event capture: the capture configuration as one struct, start and stop, flush,
 * the timer and the capture counters, over the evcap block's registers (docs/regmap.md,
 * "evcap"; what each setting does to the stat packets: docs/packet-format.md).
 *
 * Conventions as in pktstats/pktstats.h: 0 or a negative errno, nothing printed. A function
 * that writes several registers stops at the first failure; the registers written before it
 * keep their new values (the error says which one failed through pktstats_error()).
 */
#ifndef PKTSTATS_CAPTURE_H
#define PKTSTATS_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "pktstats/format.h"
#include "pktstats/pktstats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bits of pktstats_capture_config.event_mask (the event type codes in stat packets are
 * PKTSTATS_EVENT_* of pktstats/format.h, which also has the limits used below) */
#define PKTSTATS_EVENT_MASK_ARRIVAL   0x1u
#define PKTSTATS_EVENT_MASK_DEPARTURE 0x2u
#define PKTSTATS_EVENT_MASK_DROP      0x4u

/*
 * Everything that decides what is captured and how stat packets look. MAC addresses are in
 * wire order (mac[0] goes first); IPv4 addresses are numbers with the first byte on the wire in
 * bits 31:24 (10.0.0.1 is 0x0a000001), like the registers.
 */
struct pktstats_capture_config {
	unsigned resolution;   /* exponent c, 0..PKTSTATS_RESOLUTION_MAX */
	uint8_t queue_mask;    /* bit q: capture output queue q */
	uint8_t event_mask;    /* PKTSTATS_EVENT_MASK_* */
	uint8_t output_ports;  /* bit p: send stat packets on switch output port p */
	uint8_t destination_mac[6];
	uint8_t source_mac[6];
	uint32_t source_ip;
	uint32_t destination_ip;
	uint8_t tos;
	uint8_t ttl;
	uint16_t udp_source_port;
	uint16_t udp_destination_port;
	uint16_t max_length;    /* PKTSTATS_MAX_LENGTH_MIN..PKTSTATS_MAX_LENGTH_MAX */
	uint32_t flush_timeout; /* timer cycles of 8 ns from when a packet opens; 0 = never */
};

/* Reads the configuration. */
int pktstats_capture_get(struct pktstats_dev *dev, struct pktstats_capture_config *config);

/*
 * Writes the configuration. Every field is checked first; a value out of range gives -EINVAL
 * (-ERANGE for max_length) and writes nothing. Writing a resolution or mask that differs from
 * the current one closes the current stat packet (docs/packet-format.md); writing the same
 * values changes nothing. Capture keeps running or stopped as it was.
 */
int pktstats_capture_set(struct pktstats_dev *dev, const struct pktstats_capture_config *config);

/* The configuration the device has after reset (from the register map). */
void pktstats_capture_defaults(struct pktstats_capture_config *config);

/* Start capturing (the sequence numbers restart at 0), stop (the open packet is sent), and
 * whether capture is running. */
int pktstats_capture_start(struct pktstats_dev *dev);
int pktstats_capture_stop(struct pktstats_dev *dev);
int pktstats_capture_running(struct pktstats_dev *dev, bool *running);

/* Close the open stat packet and send it now. */
int pktstats_capture_flush(struct pktstats_dev *dev);

/* The timer, in cycles of 8 ns; reset it to 0; load it with a value. */
int pktstats_timer_read(struct pktstats_dev *dev, uint64_t *cycles);
int pktstats_timer_reset(struct pktstats_dev *dev);
int pktstats_timer_load(struct pktstats_dev *dev, uint64_t cycles);

struct pktstats_capture_counters {
	uint64_t events_missed; /* lost because the record FIFO was full */
	uint64_t events_sent;   /* sent in stat packets */
	uint64_t packets_sent;  /* stat packets sent */
};

/* Reads the capture counters, each one coherent (64-bit latch rule). */
int pktstats_capture_counters_get(struct pktstats_dev *dev,
				  struct pktstats_capture_counters *counters);
/* Clears them. */
int pktstats_capture_counters_clear(struct pktstats_dev *dev);

#ifdef __cplusplus
}
#endif

#endif
