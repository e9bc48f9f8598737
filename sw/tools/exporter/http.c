/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktstats-exporter: the HTTP server on libmicrohttpd (http.h).
 */
#define _DEFAULT_SOURCE

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "exposition.h"
#include "http.h"
#include "log.h"

#define NS_PER_S INT64_C(1000000000)
#define CONNECTIONS_MAX 64
#define IDLE_TIMEOUT_S 30

struct http_server {
	struct MHD_Daemon *daemon;
	struct exporter *exporter;
};

static const char landing_page[] =
	"<!DOCTYPE html>\n<html><head><title>pktstats exporter</title></head>\n<body>\n"
	"<h1>pktstats exporter</h1>\n"
	"<p>Queue, delay and flow telemetry of pktstats switches for Prometheus.</p>\n"
	"<ul><li><a href=\"metrics\">Metrics</a></li>\n"
	"<li><a href=\"-/healthy\">Health</a></li>\n"
	"<li><a href=\"-/ready\">Readiness</a></li></ul>\n</body></html>\n";

static enum MHD_Result answer_text(struct MHD_Connection *connection, unsigned status,
				   const char *content_type, const char *text)
{
	struct MHD_Response *response = MHD_create_response_from_buffer(
		strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	if (!response)
		return MHD_NO;
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, content_type);
	enum MHD_Result result = MHD_queue_response(connection, status, response);
	MHD_destroy_response(response);
	return result;
}

static int64_t monotonic(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * NS_PER_S + t.tv_nsec;
}

/* The scrape's deadline: Prometheus says how long it waits; a fifth of that is kept for the
 * answer's writing and way back */
static int64_t deadline_of(struct MHD_Connection *connection, struct exporter *exporter)
{
	int64_t timeout = (int64_t)exporter_scrape_timeout_ns(exporter);
	const char *header = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
							 "X-Prometheus-Scrape-Timeout-Seconds");
	if (header) {
		char *end;
		double seconds = strtod(header, &end);
		if (end != header && *end == '\0' && seconds > 0 && seconds < 3600) {
			int64_t theirs = (int64_t)(seconds * 0.8e9);
			if (theirs < timeout)
				timeout = theirs;
		}
	}
	return monotonic() + timeout;
}

static enum MHD_Result answer_metrics(struct MHD_Connection *connection, struct exporter *exporter)
{
	const char *accept = MHD_lookup_connection_value(connection, MHD_HEADER_KIND,
							 MHD_HTTP_HEADER_ACCEPT);
	struct exposition e;
	expo_init(&e, expo_negotiate(accept));
	exporter_render(exporter, &e, deadline_of(connection, exporter));
	if (e.failed || !e.text) {
		expo_free(&e);
		return answer_text(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain",
				   "out of memory\n");
	}
	struct MHD_Response *response =
		MHD_create_response_from_buffer(e.length, e.text, MHD_RESPMEM_MUST_FREE);
	if (!response) {
		expo_free(&e);
		return MHD_NO;
	}
	MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE,
				expo_content_type(e.format));
	enum MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
	MHD_destroy_response(response);
	return result;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size,
				  void **request_state)
{
	struct http_server *server = cls;
	static int first_call;
	(void)version;
	(void)upload_data;
	/* The first call has the headers only; answer at the second (a body, if any, is
	 * ignored: none of these take one). */
	if (*request_state != &first_call) {
		*request_state = &first_call;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD)) {
		struct MHD_Response *response = MHD_create_response_from_buffer(
			sizeof "only GET and HEAD\n" - 1, (void *)"only GET and HEAD\n",
			MHD_RESPMEM_PERSISTENT);
		if (!response)
			return MHD_NO;
		MHD_add_response_header(response, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
		enum MHD_Result result =
			MHD_queue_response(connection, MHD_HTTP_METHOD_NOT_ALLOWED, response);
		MHD_destroy_response(response);
		return result;
	}
	if (!strcmp(url, "/metrics"))
		return answer_metrics(connection, server->exporter);
	if (!strcmp(url, "/-/healthy"))
		return answer_text(connection, MHD_HTTP_OK, "text/plain; charset=utf-8",
				   "pktstats-exporter is healthy.\n");
	if (!strcmp(url, "/-/ready")) {
		bool ready = exporter_ready(server->exporter);
		return answer_text(connection, ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
				   "text/plain; charset=utf-8",
				   ready ? "pktstats-exporter is ready.\n"
					 : "pktstats-exporter is starting: devices not tried yet.\n");
	}
	if (!strcmp(url, "/"))
		return answer_text(connection, MHD_HTTP_OK, "text/html; charset=utf-8", landing_page);
	return answer_text(connection, MHD_HTTP_NOT_FOUND, "text/plain; charset=utf-8",
			   "not found: see /metrics\n");
}

/* libmicrohttpd's own messages go to the log, one line each */
static void on_library_message(void *cls, const char *format, va_list args)
{
	char text[512];
	(void)cls;
	vsnprintf(text, sizeof text, format, args);
	text[strcspn(text, "\n")] = '\0';
	exporter_log("http: %s", text);
}

int http_start(struct http_server **server, struct exporter *exporter, const char *host,
	       uint16_t port, char *error, size_t size)
{
	struct http_server *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(error, size, "out of memory");
		return -ENOMEM;
	}
	s->exporter = exporter;
	struct sockaddr_in v4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct sockaddr_in6 v6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	struct sockaddr *address = (struct sockaddr *)&v4;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
			 MHD_USE_ERROR_LOG;
	if (*host && inet_pton(AF_INET6, host, &v6.sin6_addr) == 1) {
		address = (struct sockaddr *)&v6;
		flags |= MHD_USE_IPv6;
	} else if (*host && inet_pton(AF_INET, host, &v4.sin_addr) != 1) {
		snprintf(error, size, "'%s' is not an IP address", host);
		free(s);
		return -EINVAL;
	}
	/* every address: IPv6 and IPv4 on one socket, or IPv4 alone where IPv6 is off */
	for (int attempt = 0; attempt < 2 && !s->daemon; attempt++) {
		unsigned f = flags;
		struct sockaddr *a = address;
		if (!*host && attempt == 0) {
			f |= MHD_USE_DUAL_STACK;
			a = (struct sockaddr *)&v6;
		} else if (!*host) {
			a = (struct sockaddr *)&v4;
		} else if (attempt) {
			break;
		}
		s->daemon = MHD_start_daemon(f, port, NULL, NULL, on_request, s,
					     MHD_OPTION_EXTERNAL_LOGGER, on_library_message, NULL,
					     MHD_OPTION_SOCK_ADDR, a,
					     MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTIONS_MAX,
					     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)IDLE_TIMEOUT_S,
					     MHD_OPTION_END);
	}
	if (!s->daemon) {
		snprintf(error, size, "cannot listen on %s%s%s:%u (in use, or not an address of this "
			 "host)", strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
			 (unsigned)port);
		free(s);
		return -EADDRNOTAVAIL;
	}
	*server = s;
	return 0;
}

void http_stop(struct http_server *s)
{
	if (!s)
		return;
	MHD_stop_daemon(s->daemon);
	free(s);
}
