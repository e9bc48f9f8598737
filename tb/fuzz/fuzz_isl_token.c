/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fuzz target: the ISL signature token (a JWT, HS256) through pktstats_isl_verify
 * (sw/driver/src/isl_frame.c) under a fixed secret: the header, the base64url of all three
 * parts, the signature's length and value, the claims.
 *
 * Input: an option byte, then text. Option bit 0 set: the text is the token's first two parts
 * and the target signs them (HMAC-SHA256 under the secret, base64url by libcrypto's base64
 * encoder), so that a fuzzed header and claims get past the signature; clear: the text is
 * the whole token. Bits 7:1 choose a character of the signature to change. Checked, abort()
 * on a break:
 *   - fuzz_isl_verify() (tb/fuzz/fuzz_isl.h): 0, -EBADMSG or -EACCES; a token that verifies
 *     fails under another secret, its claims signed again verify to the same claims;
 *   - a text signed here is never refused for its signature (-EACCES);
 *   - a token that verifies fails once a character of its signature is changed, and with a
 *     character added (one text per token: base64url is canonical).
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "fuzz_isl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SIGNATURE_CHARS 43 /* 32 bytes in base64url without padding */

/* "." and base64url(HMAC-SHA256(secret, text)) at out (45 bytes with the NUL) */
static void sign(const char *text, size_t n, char *out)
{
	uint8_t mac[32];
	unsigned mac_length = 0;
	unsigned char b64[48];

	FUZZ_CHECK(HMAC(EVP_sha256(), fuzz_isl_secret, (int)FUZZ_ISL_SECRET_LENGTH,
			(const unsigned char *)text, n, mac, &mac_length) && mac_length == 32);
	FUZZ_CHECK(EVP_EncodeBlock(b64, mac, 32) == SIGNATURE_CHARS + 1); /* one '=' */
	out[0] = '.';
	for (size_t i = 0; i < SIGNATURE_CHARS; i++)
		out[1 + i] = b64[i] == '+' ? '-' : b64[i] == '/' ? '_' : (char)b64[i];
	out[1 + SIGNATURE_CHARS] = 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const bool signed_here = data[0] & 1;
	const size_t text = size - 1, length = text + (signed_here ? 1 + SIGNATURE_CHARS : 0);
	char *token = malloc(length + 2);
	struct pktstats_isl_claims claims;

	FUZZ_CHECK(token != NULL);
	memcpy(token, data + 1, text);
	if (signed_here)
		sign(token, text, token + text);
	int err = fuzz_isl_verify(token, length, &claims);
	FUZZ_CHECK(!signed_here || err != -EACCES);
	if (err == 0) {
		/* the verified token's last part is its 43 signature characters */
		char *c = &token[length - SIGNATURE_CHARS + (data[0] >> 1) % SIGNATURE_CHARS];
		const char was = *c;
		*c = was == 'A' ? 'Q' : 'A';
		FUZZ_CHECK(fuzz_isl_verify(token, length, &claims) != 0);
		*c = was;
		token[length] = 'A';
		FUZZ_CHECK(fuzz_isl_verify(token, length + 1, &claims) == -EBADMSG);
	}
	free(token);
	return 0;
}
