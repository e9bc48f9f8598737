/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the proactive measurements, each on a thread of its own, and the flow
 * monitor's IPFIX listener. Each kind starts from its config line (config.h), stops, and
 * renders its metric families over all its running sessions at once (every family's samples
 * together, as the exposition formats require). A reload keeps the sessions whose line did
 * not change, so their counters go on.
 *
 *   dm_session        Y.1731 two-way delay: DMMs to a peer MEP every interval through the CPU
 *                     port's interface, the DMRs back (dm_session.c)
 *   one_way_session   1DMs received on a CPU port's interface (dm_session.c)
 *   headroom_session  the headroom PDU's round trip of a port, at start, on link up, on a
 *                     change of the port's configuration and every interval (headroom_session.c)
 *   ipfix_listener    the flow monitors' IPFIX messages, counted by switch (observation
 *                     domain), kind, profile and group (ipfix_listener.c)
 */
#ifndef PKTSTATS_EXPORTER_MEASUREMENTS_H
#define PKTSTATS_EXPORTER_MEASUREMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "exposition.h"

struct dm_session;
int dm_session_start(struct dm_session **session, const struct exporter_dm_config *config,
		     const struct exporter_config *whole);
void dm_session_stop(struct dm_session *session);
void dm_sessions_render(struct exposition *e, struct dm_session *const *sessions, size_t n);

struct one_way_session;
int one_way_session_start(struct one_way_session **session,
			  const struct exporter_one_way_config *config,
			  const struct exporter_config *whole);
void one_way_session_stop(struct one_way_session *session);
void one_way_sessions_render(struct exposition *e, struct one_way_session *const *sessions,
			     size_t n);

struct headroom_session;
/* whole: for the switch's device (the port's configuration, its link) */
int headroom_session_start(struct headroom_session **session,
			   const struct exporter_headroom_config *config,
			   const struct exporter_config *whole);
void headroom_session_stop(struct headroom_session *session);
void headroom_sessions_render(struct exposition *e, struct headroom_session *const *sessions,
			      size_t n);

struct ipfix_listener;
/* Listens on host:port (UDP); enterprise: the PEN of the flow monitor's IEs. */
int ipfix_listener_start(struct ipfix_listener **listener, const char *host, uint16_t port,
			 uint32_t enterprise);
void ipfix_listener_stop(struct ipfix_listener *listener);
/* Which switch each observation domain is (the switches with ipfix-domain=); a reload calls
 * it again: the counters of switches that stay are kept. */
void ipfix_listener_set_switches(struct ipfix_listener *listener,
				 const struct exporter_config *config);
void ipfix_listener_render(struct exposition *e, struct ipfix_listener *listener);

#endif
