/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: its HTTP server, GNU libmicrohttpd with a thread per connection (a scrape
 * waits for the devices; the health checks must not wait behind it), at most 64 connections,
 * 30 s idle timeout. GET and HEAD only:
 *
 *   /metrics     the exposition, OpenMetrics 1.0.0 when the Accept header asks for it, text
 *                0.0.4 otherwise; the scrape waits for the devices' reads for 0.8 of
 *                Prometheus's X-Prometheus-Scrape-Timeout-Seconds, or the configured
 *                scrape-timeout (the smaller); a device whose read is not over by then shows
 *                its last one
 *   /-/healthy   200 while the process serves
 *   /-/ready     200 once every switch's device and stat interface has been tried, else 503
 *   /            a page linking to /metrics
 * anything else 404, other methods 405.
 */
#ifndef PKTSTATS_EXPORTER_HTTP_H
#define PKTSTATS_EXPORTER_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "exporter.h"

struct http_server;

/* Listens on host (an IPv4 or IPv6 literal; "" every address) and port. 0, or -errno with
 * the reason in error. */
int http_start(struct http_server **server, struct exporter *exporter, const char *host,
	       uint16_t port, char *error, size_t size);
void http_stop(struct http_server *server);

#endif
