/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: what runs for a configuration, and the /metrics it gives.
 *
 * Per switch a device poller (device_poller.h) and a stat packet capture (stat_capture.h);
 * the measurements and the IPFIX listener (measurements.h). exporter_apply() starts them for
 * a configuration and, at a reload, keeps every part whose configuration did not change (its
 * counters go on), stops the parts that went, starts the new ones. exporter_render() is the
 * scrape: it asks every switch's device for its registers at once, waits for them until the
 * deadline, and writes every family.
 */
#ifndef PKTSTATS_EXPORTER_EXPORTER_H
#define PKTSTATS_EXPORTER_EXPORTER_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "exposition.h"

/* The version and commit the Makefile builds in (-D) */
#ifndef PKTSTATS_EXPORTER_VERSION
#define PKTSTATS_EXPORTER_VERSION "unknown"
#endif
#ifndef PKTSTATS_EXPORTER_REVISION
#define PKTSTATS_EXPORTER_REVISION "unknown"
#endif

struct exporter;

int exporter_create(struct exporter **exporter);
/* Stops everything and frees it. */
void exporter_destroy(struct exporter *exporter);

/* Runs config (checked by exporter_config_check): 0, or -errno when a part could not be
 * started (out of memory, threads); the parts that did start run. */
int exporter_apply(struct exporter *exporter, const struct exporter_config *config);

/* A reload's outcome, for its metrics */
void exporter_reloaded(struct exporter *exporter, bool success);

/* The exposition of a scrape in format, waiting for devices until deadline_ns
 * (CLOCK_MONOTONIC); e is initialised by the caller. */
void exporter_render(struct exporter *exporter, struct exposition *e, int64_t deadline_ns);

/* Ready: every switch's device and stat interface has been tried once. */
bool exporter_ready(struct exporter *exporter);

/* The scrape timeout of the configuration in force. */
uint64_t exporter_scrape_timeout_ns(struct exporter *exporter);

#endif
