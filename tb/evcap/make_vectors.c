// SPDX-License-Identifier: BSD-3-Clause
/*
 * make_vectors: a directed event-capture scenario run through the reference model, written as
 * one line per clock of inputs and expected outputs, for the Icarus test bench
 * (tb/evcap/evcap_icarus_tb.v) to replay into the RTL. Icarus is much slower than Verilator,
 * so this is a short run that still crosses every stage: single events and the flush timeout,
 * all 24 events in one clock split over small packets, a force flush, a resolution change and
 * a stalled output.
 *
 * Line format (hexadecimal fields, in this order; the test bench reads them with $fscanf):
 *   arrival departure drop arrival_lengths departure_lengths drop_lengths occupancy
 *   enable resolution queue_mask event_mask output_ports destination_mac source_mac source_ip
 *   destination_ip tos ttl udp_source_port udp_destination_port max_length flush_timeout
 *   timer_preset flush timer_reset timer_load clear_missed clear_sent clear_packets tready
 *   tvalid tdata tkeep tlast tuser timer events_missed events_sent packets_sent
 * Lengths: queue 7 first (the most significant 16 bits of the RTL bus). Occupancy: 20 bits per
 * queue, queue 7 first.
 *
 * Usage: make_vectors > vectors.txt
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pktstats/evcap_model.h"

#define QUEUE_SIZE_WIDTH 20

static void print_lengths(const uint16_t lengths[PKTSTATS_QUEUES])
{
	for (int q = PKTSTATS_QUEUES - 1; q >= 0; q--)
		printf("%04x", lengths[q]);
	printf(" ");
}

static void print_line(const struct evcap_model_config *c, const struct evcap_model_inputs *in,
		       const struct evcap_model_outputs *out)
{
	printf("%02x %02x %02x ", in->arrival, in->departure, in->drop);
	print_lengths(in->arrival_length);
	print_lengths(in->departure_length);
	print_lengths(in->drop_length);
	// 8 x 20 bits = 160 bits = 40 hex digits, queue 7 first
	uint8_t bits[20] = {0};
	for (int q = 0; q < PKTSTATS_QUEUES; q++)
		for (int b = 0; b < QUEUE_SIZE_WIDTH; b++)
			if ((in->occupancy[q] >> b) & 1) {
				int bit = q * QUEUE_SIZE_WIDTH + b;
				bits[19 - bit / 8] |= (uint8_t)(1u << (bit % 8));
			}
	for (int i = 0; i < 20; i++)
		printf("%02x", bits[i]);
	printf(" %x %x %02x %x %02x %012" PRIx64 " %012" PRIx64 " %08x %08x %02x %02x %04x %04x"
	       " %04x %08x %016" PRIx64 " %x %x %x %x %x %x %x ",
	       c->enable, c->resolution, c->queue_mask, c->event_mask, c->output_ports,
	       c->destination_mac, c->source_mac, c->source_ip, c->destination_ip, c->tos, c->ttl,
	       c->udp_source_port, c->udp_destination_port, c->max_length, c->flush_timeout,
	       c->timer_preset, in->flush, in->timer_reset, in->timer_load, in->clear_events_missed,
	       in->clear_events_sent, in->clear_packets_sent, in->tready);
	printf("%x %016" PRIx64 " %02x %x %02x %016" PRIx64 " %016" PRIx64 " %016" PRIx64
	       " %016" PRIx64 "\n",
	       out->tvalid, out->tvalid ? out->tdata : 0, out->tvalid ? out->tkeep : 0,
	       out->tvalid ? out->tlast : 0, out->tuser, out->timer, out->events_missed,
	       out->events_sent, out->packets_sent);
}

int main(void)
{
	struct evcap_model_params params;
	evcap_model_default_params(&params);
	params.queue_size_width = QUEUE_SIZE_WIDTH;
	struct evcap_model *model;
	if (evcap_model_create(&params, &model)) {
		fprintf(stderr, "make_vectors: cannot create the model\n");
		return 1;
	}

	struct evcap_model_config c;
	memset(&c, 0, sizeof(c));
	c.queue_mask = 0xff;
	c.event_mask = 0x7;
	c.output_ports = 0x10;
	c.destination_mac = 0x0200000000aaULL;
	c.source_mac = 0x0200000000bbULL;
	c.source_ip = 0xc0a80001;
	c.destination_ip = 0xc0a800fe;
	c.ttl = 64;
	c.udp_source_port = PKTSTATS_UDP_PORT;
	c.udp_destination_port = PKTSTATS_UDP_PORT;
	c.max_length = 200;
	c.flush_timeout = 150;

	uint32_t occupancy[PKTSTATS_QUEUES];
	for (int q = 0; q < PKTSTATS_QUEUES; q++)
		occupancy[q] = 100u * (unsigned)(q + 1);

	for (unsigned cycle = 0; cycle < 3000; cycle++) {
		struct evcap_model_inputs in;
		memset(&in, 0, sizeof(in));
		in.tready = !(cycle >= 2000 && cycle < 2400) && cycle % 7 != 3;
		c.enable = cycle >= 2;
		if (cycle == 1500)
			c.resolution = 3;
		if (cycle == 1200)
			in.flush = true;
		if (cycle % 41 == 5 || cycle == 1190) {
			unsigned q = cycle % 8;
			in.arrival = (uint8_t)(1u << q);
			in.arrival_length[q] = (uint16_t)(1 + cycle % 190);
		}
		if ((cycle >= 600 && cycle < 640) || (cycle >= 2010 && cycle < 2300)) {
			for (int q = 0; q < PKTSTATS_QUEUES; q++) {
				in.arrival |= (uint8_t)(1u << q);
				in.departure |= (uint8_t)(1u << q);
				in.drop |= (uint8_t)(1u << q);
				in.arrival_length[q] = (uint16_t)(q + 1);
				in.departure_length[q] = (uint16_t)(q + 1);
				in.drop_length[q] = 300; // saturates to 255
			}
		}
		for (int q = 0; q < PKTSTATS_QUEUES; q++)
			in.occupancy[q] = occupancy[q];

		struct evcap_model_outputs out;
		evcap_model_outputs(model, &out);
		print_line(&c, &in, &out);
		evcap_model_step(model, &c, &in);

		for (int q = 0; q < PKTSTATS_QUEUES; q++) {
			if ((in.arrival >> q) & 1)
				occupancy[q] += in.arrival_length[q];
			if ((in.departure >> q) & 1)
				occupancy[q] -= in.departure_length[q];
		}
	}
	evcap_model_destroy(model);
	return 0;
}
