/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the ISL fuzz targets (tb/fuzz/fuzz_isl.c, tb/fuzz/fuzz_isl_token.c): the fixed
 * secret tokens are verified under, and the checks of one verification.
 */
#ifndef PKTSTATS_FUZZ_ISL_H
#define PKTSTATS_FUZZ_ISL_H

#include <jansson.h>
#include <openssl/evp.h>

#include "pktstats/isl.h"

#include "fuzz_common.h"

/* tb/common/isl_frames.py's default secret: the seeds' tokens are signed with it
 * (tb/fuzz/make_corpus.py), so that the claims are explored from the start. */
static const uint8_t fuzz_isl_secret[] = "secret";
#define FUZZ_ISL_SECRET_LENGTH (sizeof fuzz_isl_secret - 1)

static inline bool fuzz_isl_same_claims(const struct pktstats_isl_claims *a,
					const struct pktstats_isl_claims *b)
{
	return a->dpid == b->dpid && a->ts == b->ts && a->have_id == b->have_id && a->id == b->id;
}

/*
 * A reference reading of a part of a token that verified, not the library's: base64url turned
 * into base64 for libcrypto's decoder, the JSON read by jansson. NULL when it is no object.
 */
static inline json_t *fuzz_isl_json_part(const char *text, size_t n)
{
	char *b64 = malloc(n + 4);
	unsigned char *raw = malloc(n + 4);
	json_t *json = NULL;

	FUZZ_CHECK(b64 && raw);
	for (size_t i = 0; i < n; i++)
		b64[i] = text[i] == '-' ? '+' : text[i] == '_' ? '/' : text[i];
	size_t padded = n;
	while (padded % 4)
		b64[padded++] = '=';
	int len = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)padded);
	if (len >= 0) {
		len -= (int)(padded - n); /* EVP_DecodeBlock counts the padding's bytes */
		json = json_loadb((const char *)raw, (size_t)len, 0, NULL);
	}
	free(b64);
	free(raw);
	return json;
}

/* The header and claims of a token that verified, read by the reference: alg HS256, dpid,
 * ts and id what pktstats_isl_verify() said */
static inline void fuzz_isl_check_parts(const char *token, size_t length,
					const struct pktstats_isl_claims *claims)
{
	const char *dot1 = memchr(token, '.', length);
	FUZZ_CHECK(dot1 != NULL);
	const char *dot2 = memchr(dot1 + 1, '.', length - (size_t)(dot1 + 1 - token));
	FUZZ_CHECK(dot2 != NULL);
	json_t *header = fuzz_isl_json_part(token, (size_t)(dot1 - token));
	json_t *body = fuzz_isl_json_part(dot1 + 1, (size_t)(dot2 - dot1 - 1));
	FUZZ_CHECK(header && body);
	const char *alg = json_string_value(json_object_get(header, "alg"));
	FUZZ_CHECK(alg && !strcmp(alg, "HS256"));
	json_t *id = json_object_get(body, "id");
	FUZZ_CHECK(json_integer_value(json_object_get(body, "dpid")) == claims->dpid &&
		   json_integer_value(json_object_get(body, "ts")) == claims->ts &&
		   (id != NULL) == claims->have_id && json_integer_value(id) == claims->id);
	json_decref(header);
	json_decref(body);
}

/*
 * pktstats_isl_verify() of `length` bytes of token (an exactly sized copy: ASan sees a read
 * past it) under the secret, as `pktstats isl run` calls it. Checked: 0, -EBADMSG or -EACCES;
 * a token that verifies names HS256 and has the claims it read (fuzz_isl_check_parts(); id 0
 * without one) and fails under another secret with -EACCES; its claims, signed again
 * (pktstats_isl_sign), verify to the same claims. Returns what pktstats_isl_verify()
 * returned, the claims in *claims.
 */
static inline int fuzz_isl_verify(const char *token, size_t length,
				  struct pktstats_isl_claims *claims)
{
	static const uint8_t other[] = "not the secret";
	char *copy = (char *)fuzz_copy((const uint8_t *)token, length);
	struct pktstats_isl_claims again;

	*claims = (struct pktstats_isl_claims){INT64_MIN, INT64_MIN, true, INT64_MIN};
	int err = pktstats_isl_verify(fuzz_isl_secret, FUZZ_ISL_SECRET_LENGTH, copy, length,
				      claims);
	FUZZ_CHECK(err == 0 || err == -EBADMSG || err == -EACCES);
	if (err == 0) {
		FUZZ_CHECK(claims->have_id || claims->id == 0);
		fuzz_isl_check_parts(copy, length, claims);
		FUZZ_CHECK(pktstats_isl_verify(other, sizeof other - 1, copy, length, &again) ==
			   -EACCES);

		char token2[PKTSTATS_ISL_TOKEN_MAX + 1];
		int n = pktstats_isl_sign(fuzz_isl_secret, FUZZ_ISL_SECRET_LENGTH, claims, token2,
					  sizeof token2);
		FUZZ_CHECK(n > 0 && (size_t)n == strlen(token2));
		FUZZ_CHECK(pktstats_isl_verify(fuzz_isl_secret, FUZZ_ISL_SECRET_LENGTH, token2,
					       (size_t)n, &again) == 0);
		FUZZ_CHECK(fuzz_isl_same_claims(claims, &again));
	}
	free(copy);
	return err;
}

#endif
