/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TAP test of the link-delay frames and figures (src/oam_frame.c, pktstats/oam.h).
 *
 * The frames are written out here byte by byte from the maps of docs/oam.md (not made by the
 * builder), so that a mistake shared by the builder and the parser cannot hide; every delay is
 * worked out by hand in the comments. The PFC headroom is checked against the table of the
 * headroom measurement proposal (seed 004): 100 Gb/s at 500 m, 100 m, 20 m.
 */
#define _DEFAULT_SOURCE /* mkstemp, ftruncate */

#include "pktstats/oam.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pktstats/regs.h"

static unsigned tests_run, tests_failed;
static int test_ok;

static void begin(void)
{
	test_ok = 1;
}

static void end(const char *name)
{
	tests_run++;
	if (!test_ok)
		tests_failed++;
	printf("%sok %u - %s\n", test_ok ? "" : "not ", tests_run, name);
}

static void diag(const char *fmt, ...)
{
	va_list ap;
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define EXPECT_EQ(a, b)                                                                  \
	do {                                                                             \
		int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                            \
		if (a_ != b_) {                                                          \
			if (test_ok)                                                     \
				diag("line %d: %s == %s: %" PRId64 " != %" PRId64,       \
				     __LINE__, #a, #b, a_, b_);                          \
			test_ok = 0;                                                     \
		}                                                                        \
	} while (0)

#define EXPECT(cond) EXPECT_EQ(!!(cond), 1)

/* ---------------------------------------------------------------------------------------- */
/* Frames by hand (docs/oam.md)                                                               */

/* DMM, untagged, MEL 5, version 1, TxTimeStampf 100 s 999 999 000 ns, the other stamps 0, a
 * Data TLV of 4 bytes de ad be ef, the End TLV, padding to 60. */
static const uint8_t dmm[60] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,             /* 0..5 destination */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,             /* 6..11 source */
	0x89, 0x02,                                     /* 12..13 EtherType */
	0xa1,                                           /* 14 MEL 5 (101) | version 1 */
	47,                                             /* 15 opcode DMM */
	0x00,                                           /* 16 flags */
	32,                                             /* 17 TLV offset */
	0x00, 0x00, 0x00, 0x64, 0x3b, 0x9a, 0xc6, 0x18, /* 18..25 TxTimeStampf 100 s 999999000 */
	0, 0, 0, 0, 0, 0, 0, 0,                         /* 26..33 RxTimeStampf */
	0, 0, 0, 0, 0, 0, 0, 0,                         /* 34..41 TxTimeStampb */
	0, 0, 0, 0, 0, 0, 0, 0,                         /* 42..49 RxTimeb */
	0x03, 0x00, 0x04, 0xde, 0xad, 0xbe, 0xef,       /* 50..56 Data TLV, 4 bytes */
	0x00,                                           /* 57 End TLV */
	0x00, 0x00,                                     /* 58..59 padding */
};

/* DMR, tagged (TCI 0x6064: PCP 3, VID 100), MEL 5, version 1: TxTimeStampf 100 s 999999000,
 * RxTimeStampf 150 s 500 (the peer's clock is 50 s ahead), TxTimeStampb 150 s 20500, RxTimeb
 * 101 s 40000; a Data TLV of 8 bytes (a sequence number 7), the End TLV; 66 bytes. */
static const uint8_t dmr_tagged[66] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,             /* destination */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02,             /* source */
	0x81, 0x00, 0x60, 0x64,                         /* 802.1Q tag */
	0x89, 0x02,                                     /* 16..17 EtherType */
	0xa1, 46, 0x00, 32,                             /* 18..21 MEL|version, DMR, flags, offset */
	0x00, 0x00, 0x00, 0x64, 0x3b, 0x9a, 0xc6, 0x18, /* 22..29 TxTimeStampf 100 s 999999000 */
	0x00, 0x00, 0x00, 0x96, 0x00, 0x00, 0x01, 0xf4, /* 30..37 RxTimeStampf 150 s 500 */
	0x00, 0x00, 0x00, 0x96, 0x00, 0x00, 0x50, 0x14, /* 38..45 TxTimeStampb 150 s 20500 */
	0x00, 0x00, 0x00, 0x65, 0x00, 0x00, 0x9c, 0x40, /* 46..53 RxTimeb 101 s 40000 */
	0x03, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0, 7,       /* 54..64 Data TLV, 8 bytes */
	0x00,                                           /* 65 End TLV */
};

/* 1DM, MEL 0, version 0: TxTimeStampf 1 s 2 ns, RxTimef 3 s 4 ns; End TLV; padding. */
static const uint8_t one_dm[60] = {
	0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x89, 0x02,
	0x00, 45, 0x00, 16,                             /* 14..17 */
	0, 0, 0, 1, 0, 0, 0, 2,                         /* 18..25 TxTimeStampf */
	0, 0, 0, 3, 0, 0, 0, 4,                         /* 26..33 RxTimef */
	0x00,                                           /* 34 End TLV */
	/* 35..59 padding */
};

/* Headroom request: t1..t4 zero; 60 bytes. */
static const uint8_t request[60] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e,             /* nearest-bridge group address */
	0x02, 0x00, 0x00, 0x00, 0x00, 0x01,
	0x89, 0xa2,
	0x01,                                           /* encapsulation version 0 | subtype 1 */
	0x11,                                           /* version 1 | reserved 0 | request */
	/* 16..47 t1..t4 zero, 48..59 padding */
};

/* Headroom response: t1 5 s 999999900, t2 1000 s 100, t3 1000 s 700, t4 6 s 1500. Round trip:
 * t4 - t1 = 1600 ns, t3 - t2 = 600 ns: 1000 ns. */
static const uint8_t response[60] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02,
	0x89, 0xa2, 0x01, 0x12,
	0x00, 0x00, 0x00, 0x05, 0x3b, 0x9a, 0xc9, 0x9c, /* 16..23 t1 5 s 999999900 */
	0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x00, 0x64, /* 24..31 t2 1000 s 100 */
	0x00, 0x00, 0x03, 0xe8, 0x00, 0x00, 0x02, 0xbc, /* 32..39 t3 1000 s 700 */
	0x00, 0x00, 0x00, 0x06, 0x00, 0x00, 0x05, 0xdc, /* 40..47 t4 6 s 1500 */
};

static bool same_time(struct pktstats_wire_time t, uint32_t s, uint32_t ns)
{
	return t.seconds == s && t.nanoseconds == ns;
}

static bool same_bytes(const uint8_t *a, int alen, const uint8_t *b, size_t blen)
{
	if (alen < 0 || (size_t)alen != blen) {
		diag("length %d, expected %zu", alen, blen);
		return false;
	}
	for (size_t i = 0; i < blen; i++)
		if (a[i] != b[i]) {
			diag("byte %zu: 0x%02x, expected 0x%02x", i, a[i], b[i]);
			return false;
		}
	return true;
}

/* ---------------------------------------------------------------------------------------- */

static void test_wire_time_diff(void)
{
	begin();
	struct pktstats_wire_time a = {10, 5}, b = {10, 25};
	EXPECT_EQ(pktstats_wire_time_diff(b, a), 20);
	EXPECT_EQ(pktstats_wire_time_diff(a, b), -20);
	/* across a second: 9 s 999999995 to 10 s 5 is 10 ns */
	EXPECT_EQ(pktstats_wire_time_diff((struct pktstats_wire_time){10, 5},
					  (struct pktstats_wire_time){9, 999999995}), 10);
	EXPECT_EQ(pktstats_wire_time_diff((struct pktstats_wire_time){9, 999999995},
					  (struct pktstats_wire_time){10, 5}), -10);
	/* across the 32-bit wrap: 2^32 - 1 s 999999999 to 1 s 0 is 1 s + 1 ns + 1 s */
	EXPECT_EQ(pktstats_wire_time_diff((struct pktstats_wire_time){1, 0},
					  (struct pktstats_wire_time){0xffffffff, 999999999}),
		  1000000001);
	EXPECT_EQ(pktstats_wire_time_diff((struct pktstats_wire_time){0xffffffff, 999999999},
					  (struct pktstats_wire_time){1, 0}),
		  -1000000001);
	EXPECT_EQ(pktstats_wire_time_diff((struct pktstats_wire_time){0, 0},
					  (struct pktstats_wire_time){0xffffffff, 0}), 1000000000);
	/* 2^31 - 1 s ahead is the largest positive, 2^31 s the most negative */
	EXPECT_EQ(pktstats_wire_time_diff((struct pktstats_wire_time){0x7fffffff, 0},
					  (struct pktstats_wire_time){0, 0}),
		  INT64_C(2147483647) * 1000000000);
	EXPECT_EQ(pktstats_wire_time_diff((struct pktstats_wire_time){0x80000000, 0},
					  (struct pktstats_wire_time){0, 0}),
		  -INT64_C(2147483648) * 1000000000);
	end("wire_time_diff: within a second, across a second, across the 2^32 s wrap, both signs");
}

static void test_dmm(void)
{
	struct pktstats_dm_frame dm;
	enum pktstats_oam_error error;
	begin();
	EXPECT_EQ(pktstats_dm_parse(dmm, sizeof dmm, &dm, &error), 0);
	EXPECT_EQ(error, PKTSTATS_OAM_OK);
	EXPECT(!memcmp(dm.destination, "\x02\0\0\0\0\x02", 6) && !memcmp(dm.source, "\x02\0\0\0\0\x01", 6));
	EXPECT(!dm.tagged);
	EXPECT_EQ(dm.level, 5);
	EXPECT_EQ(dm.version, 1);
	EXPECT_EQ(dm.opcode, PKTSTATS_DM_OPCODE_DMM);
	EXPECT_EQ(dm.flags, 0);
	EXPECT_EQ(dm.tlv_offset, 32);
	EXPECT(same_time(dm.tx_timestamp_f, 100, 999999000));
	EXPECT(same_time(dm.rx_timestamp_f, 0, 0) && same_time(dm.tx_timestamp_b, 0, 0) &&
	       same_time(dm.rx_timestamp_b, 0, 0));
	EXPECT_EQ(dm.data_tlv_length, 4);
	EXPECT(dm.data_tlv == dmm + 53);
	end("dm_parse: a DMM written by hand (MEL 5, version 1, Data TLV of 4 bytes)");

	begin();
	uint8_t buf[128];
	struct pktstats_dm_frame built = dm;
	int len = pktstats_dm_build(&built, buf, sizeof buf);
	EXPECT(same_bytes(buf, len, dmm, sizeof dmm));
	built.tlv_offset = 0; /* the default */
	len = pktstats_dm_build(&built, buf, sizeof buf);
	EXPECT(same_bytes(buf, len, dmm, sizeof dmm));
	/* the data pointer NULL: zeros in the value */
	built.data_tlv = NULL;
	len = pktstats_dm_build(&built, buf, sizeof buf);
	EXPECT(len == 60 && !memcmp(buf + 53, "\0\0\0\0", 4) && !memcmp(buf, dmm, 53));
	end("dm_build: the parsed DMM builds back to the same 60 bytes");
}

static void test_dmr_tagged(void)
{
	struct pktstats_dm_frame dm;
	enum pktstats_oam_error error;
	begin();
	EXPECT_EQ(pktstats_dm_parse(dmr_tagged, sizeof dmr_tagged, &dm, &error), 0);
	EXPECT_EQ(error, PKTSTATS_OAM_OK);
	EXPECT(dm.tagged);
	EXPECT_EQ(dm.vlan_tci, 0x6064);
	EXPECT_EQ(dm.vlan_tci & 0xfff, 100);
	EXPECT_EQ(dm.opcode, PKTSTATS_DM_OPCODE_DMR);
	EXPECT(same_time(dm.tx_timestamp_f, 100, 999999000));
	EXPECT(same_time(dm.rx_timestamp_f, 150, 500));
	EXPECT(same_time(dm.tx_timestamp_b, 150, 20500));
	EXPECT(same_time(dm.rx_timestamp_b, 101, 40000));
	EXPECT_EQ(dm.data_tlv_length, 8);
	EXPECT(dm.data_tlv == dmr_tagged + 57 && dm.data_tlv[7] == 7);
	end("dm_parse: a tagged DMR written by hand (VID 100, four stamps, Data TLV of 8 bytes)");

	begin();
	uint8_t buf[128];
	int len = pktstats_dm_build(&dm, buf, sizeof buf);
	EXPECT(same_bytes(buf, len, dmr_tagged, sizeof dmr_tagged));
	EXPECT_EQ(pktstats_dm_build(&dm, buf, 65), -ENOSPC);
	end("dm_build: the tagged DMR builds back to the same 66 bytes; one byte short is ENOSPC");

	begin();
	/* two-way = (RxTimeb - TxTimeStampf) - (TxTimeStampb - RxTimeStampf)
	 *         = (101 s 40000 - 100 s 999999000) - (150 s 20500 - 150 s 500)
	 *         = 41000 - 20000 = 21000 ns
	 * forward  = 150 s 500 - 100 s 999999000 = 49 s 1500 ns = 49000001500 ns
	 * backward = 101 s 40000 - 150 s 20500 = -49 s + 19500 ns = -48999980500 ns */
	struct pktstats_dm_delays d;
	EXPECT_EQ(pktstats_dm_delays(&dm, &d), 0);
	EXPECT_EQ(d.two_way, 21000);
	EXPECT_EQ(d.responder, 20000);
	EXPECT_EQ(d.forward, INT64_C(49000001500));
	EXPECT_EQ(d.backward, -INT64_C(48999980500));
	EXPECT_EQ(d.forward + d.backward, d.two_way);
	struct pktstats_dm_frame missing = dm;
	missing.rx_timestamp_b = (struct pktstats_wire_time){0, 0};
	EXPECT_EQ(pktstats_dm_delays(&missing, &d), -ENODATA);
	/* across the 2^32 s wrap: TxTimeStampf 2^32-1 s 999999990, RxTimeb 0 s 1010 (1020 ns
	 * later), the peer held it 1000 ns: two-way 20 ns */
	struct pktstats_dm_frame wrap = dm;
	wrap.tx_timestamp_f = (struct pktstats_wire_time){0xffffffff, 999999990};
	wrap.rx_timestamp_f = (struct pktstats_wire_time){7, 0};
	wrap.tx_timestamp_b = (struct pktstats_wire_time){7, 1000};
	wrap.rx_timestamp_b = (struct pktstats_wire_time){0, 1010};
	EXPECT_EQ(pktstats_dm_delays(&wrap, &d), 0);
	EXPECT_EQ(d.two_way, 20);
	struct pktstats_dm_frame one = dm;
	one.opcode = PKTSTATS_DM_OPCODE_1DM;
	EXPECT_EQ(pktstats_dm_delays(&one, &d), -EINVAL);
	EXPECT_EQ(pktstats_dm_delays(NULL, &d), -EINVAL);
	end("dm_delays: two-way 21000, forward 49000001500, backward -48999980500 ns by hand; "
	    "ENODATA for a missing stamp; the 2^32 s wrap");
}

static void test_one_dm(void)
{
	struct pktstats_dm_frame dm;
	enum pktstats_oam_error error;
	begin();
	EXPECT_EQ(pktstats_dm_parse(one_dm, sizeof one_dm, &dm, &error), 0);
	EXPECT_EQ(error, PKTSTATS_OAM_OK);
	EXPECT_EQ(dm.opcode, PKTSTATS_DM_OPCODE_1DM);
	EXPECT_EQ(dm.level, 0);
	EXPECT_EQ(dm.version, 0);
	EXPECT_EQ(dm.tlv_offset, 16);
	EXPECT(same_time(dm.tx_timestamp_f, 1, 2) && same_time(dm.rx_timestamp_f, 3, 4));
	EXPECT(same_time(dm.tx_timestamp_b, 0, 0) && same_time(dm.rx_timestamp_b, 0, 0));
	EXPECT_EQ(dm.data_tlv_length, 0);
	EXPECT(dm.data_tlv == NULL);
	EXPECT_EQ(pktstats_wire_time_diff(dm.rx_timestamp_f, dm.tx_timestamp_f), 2000000002);
	uint8_t buf[64];
	int len = pktstats_dm_build(&dm, buf, sizeof buf);
	EXPECT(same_bytes(buf, len, one_dm, sizeof one_dm));
	EXPECT_EQ(pktstats_dm_build(&dm, buf, 59), -ENOSPC);
	end("1DM written by hand: parsed, delay RxTimef - TxTimeStampf 2000000002 ns, built back");
}

/* Every cut of a frame: what the parser must say for each length. */
static void test_dm_truncated(void)
{
	struct pktstats_dm_frame dm;
	enum pktstats_oam_error error;
	begin();
	/* DMM untagged: < 14 not identifiable; 14..49 truncated; 50 fine (no TLV); 51..56 the
	 * Data TLV cut (bad_tlv); 57.. fine */
	for (size_t len = 0; len <= sizeof dmm; len++) {
		enum pktstats_oam_error want =
			len < 14 ? PKTSTATS_OAM_NOT_OAM :
			len < 50 ? PKTSTATS_OAM_TRUNCATED :
			len == 50 ? PKTSTATS_OAM_OK :
			len < 57 ? PKTSTATS_OAM_BAD_TLV : PKTSTATS_OAM_OK;
		EXPECT_EQ(pktstats_dm_parse(dmm, len, &dm, &error), 0);
		if (error != want)
			diag("DMM cut at %zu bytes", len);
		EXPECT_EQ(error, want);
		if (len >= 16 && error == PKTSTATS_OAM_TRUNCATED)
			EXPECT_EQ(dm.level, 5); /* the fields read so far are filled */
	}
	/* tagged DMR: < 18 not identifiable (the EtherType is behind the tag); 18..53
	 * truncated; 54 fine; 55..64 bad TLV; 65, 66 fine */
	for (size_t len = 0; len <= sizeof dmr_tagged; len++) {
		enum pktstats_oam_error want =
			len < 18 ? PKTSTATS_OAM_NOT_OAM :
			len < 54 ? PKTSTATS_OAM_TRUNCATED :
			len == 54 ? PKTSTATS_OAM_OK :
			len < 65 ? PKTSTATS_OAM_BAD_TLV : PKTSTATS_OAM_OK;
		EXPECT_EQ(pktstats_dm_parse(dmr_tagged, len, &dm, &error), 0);
		if (error != want)
			diag("DMR cut at %zu bytes", len);
		EXPECT_EQ(error, want);
	}
	/* 1DM: 14..33 truncated, 34.. fine */
	for (size_t len = 0; len <= sizeof one_dm; len++) {
		enum pktstats_oam_error want = len < 14 ? PKTSTATS_OAM_NOT_OAM :
					       len < 34 ? PKTSTATS_OAM_TRUNCATED : PKTSTATS_OAM_OK;
		EXPECT_EQ(pktstats_dm_parse(one_dm, len, &dm, &error), 0);
		if (error != want)
			diag("1DM cut at %zu bytes", len);
		EXPECT_EQ(error, want);
	}
	end("dm_parse: every length of the DMM, the tagged DMR and the 1DM (not OAM, truncated, "
	    "bad TLV, whole)");
}

static void test_dm_malformed(void)
{
	struct pktstats_dm_frame dm;
	enum pktstats_oam_error error;
	uint8_t f[sizeof dmm];
	begin();
	static const uint8_t bad_opcodes[] = {0, 1, 3, 44, 48, 255};
	for (size_t i = 0; i < sizeof bad_opcodes; i++) {
		memcpy(f, dmm, sizeof f);
		f[15] = bad_opcodes[i];
		pktstats_dm_parse(f, sizeof f, &dm, &error);
		EXPECT_EQ(error, PKTSTATS_OAM_BAD_OPCODE);
		EXPECT_EQ(dm.opcode, bad_opcodes[i]);
		/* a header only: the opcode is still what is wrong */
		pktstats_dm_parse(f, 18, &dm, &error);
		EXPECT_EQ(error, PKTSTATS_OAM_BAD_OPCODE);
	}
	end("dm_parse: opcodes 0, 1 (CCM), 3, 44, 48, 255 are bad_opcode");

	begin();
	for (unsigned version = 0; version < 32; version++) {
		memcpy(f, dmm, sizeof f);
		f[14] = (uint8_t)(5 << 5 | version);
		pktstats_dm_parse(f, sizeof f, &dm, &error);
		EXPECT_EQ(error, version <= 1 ? PKTSTATS_OAM_OK : PKTSTATS_OAM_BAD_VERSION);
		EXPECT_EQ(dm.version, version);
		EXPECT_EQ(dm.level, 5);
	}
	end("dm_parse: versions 0 and 1 accepted, 2..31 bad_version");

	begin();
	/* nanoseconds 10^9 (3b 9a ca 00) in each stamp of the DMR in turn; 999999999 fine */
	for (size_t field = 0; field < 4; field++) {
		uint8_t g[sizeof dmr_tagged];
		memcpy(g, dmr_tagged, sizeof g);
		memcpy(g + 22 + 8 * field + 4, "\x3b\x9a\xca\x00", 4);
		pktstats_dm_parse(g, sizeof g, &dm, &error);
		EXPECT_EQ(error, PKTSTATS_OAM_BAD_TIMESTAMP);
		memcpy(g + 22 + 8 * field + 4, "\x3b\x9a\xc9\xff", 4);
		pktstats_dm_parse(g, sizeof g, &dm, &error);
		EXPECT_EQ(error, PKTSTATS_OAM_OK);
	}
	end("dm_parse: nanoseconds 10^9 in any of the four stamps is bad_timestamp, 10^9-1 fine");

	begin();
	memcpy(f, dmm, sizeof f);
	f[13] = 0x03; /* 0x8903 */
	pktstats_dm_parse(f, sizeof f, &dm, &error);
	EXPECT_EQ(error, PKTSTATS_OAM_NOT_OAM);
	pktstats_dm_parse(request, sizeof request, &dm, &error);
	EXPECT_EQ(error, PKTSTATS_OAM_NOT_OAM);
	/* tagged with another EtherType behind the tag */
	uint8_t g[sizeof dmr_tagged];
	memcpy(g, dmr_tagged, sizeof g);
	g[16] = 0x08;
	g[17] = 0x00;
	pktstats_dm_parse(g, sizeof g, &dm, &error);
	EXPECT_EQ(error, PKTSTATS_OAM_NOT_OAM);
	EXPECT_EQ(pktstats_dm_parse(NULL, 0, &dm, &error), -EINVAL);
	EXPECT_EQ(pktstats_dm_parse(dmm, sizeof dmm, NULL, &error), -EINVAL);
	EXPECT_EQ(pktstats_dm_parse(dmm, sizeof dmm, &dm, NULL), -EINVAL);
	/* a TLV longer than the frame */
	memcpy(f, dmm, sizeof f);
	f[52] = 9; /* 4 -> 9: 50 + 3 + 9 > 60 */
	pktstats_dm_parse(f, sizeof f, &dm, &error);
	EXPECT_EQ(error, PKTSTATS_OAM_BAD_TLV);
	end("dm_parse: other EtherTypes (also behind a tag) are not_oam; NULL is EINVAL; an "
	    "over-long TLV is bad_tlv");

	/* Found by tb/fuzz/fuzz_dm.c: a TLV offset into the stamps made TLVs (a Data TLV, whose
	 * first 8 bytes the probes take for their session and sequence) of the stamps' bytes */
	begin();
	for (unsigned offset = 0; offset <= 32; offset++) {
		memcpy(f, dmm, sizeof f);
		f[17] = (uint8_t)offset;
		pktstats_dm_parse(f, sizeof f, &dm, &error);
		EXPECT_EQ(error, offset < 32 ? PKTSTATS_OAM_BAD_TLV : PKTSTATS_OAM_OK);
		EXPECT_EQ(dm.tlv_offset, offset);
	}
	for (unsigned offset = 0; offset <= 16; offset++) {
		uint8_t h[sizeof one_dm];
		memcpy(h, one_dm, sizeof h);
		h[17] = (uint8_t)offset;
		memcpy(h + 18, "\x03\x00\x08", 3); /* TxTimeStampf's first bytes: a "Data TLV" */
		pktstats_dm_parse(h, sizeof h, &dm, &error);
		EXPECT_EQ(error, offset < 16 ? PKTSTATS_OAM_BAD_TLV : PKTSTATS_OAM_OK);
		EXPECT(offset < 16 || dm.data_tlv == NULL);
	}
	end("dm_parse: a TLV offset into the stamps (DMM 0..31, 1DM 0..15) is bad_tlv; 32 and 16 "
	    "are fine");
}

static void test_dm_build_errors(void)
{
	struct pktstats_dm_frame dm;
	enum pktstats_oam_error error;
	uint8_t buf[128];
	pktstats_dm_parse(dmm, sizeof dmm, &dm, &error);
	begin();
	struct pktstats_dm_frame bad = dm;
	bad.level = 8;
	EXPECT_EQ(pktstats_dm_build(&bad, buf, sizeof buf), -EINVAL);
	bad = dm;
	bad.version = 32;
	EXPECT_EQ(pktstats_dm_build(&bad, buf, sizeof buf), -EINVAL);
	bad = dm;
	bad.opcode = 1;
	EXPECT_EQ(pktstats_dm_build(&bad, buf, sizeof buf), -EINVAL);
	bad = dm;
	bad.tlv_offset = 16; /* a DMM's is 32 */
	EXPECT_EQ(pktstats_dm_build(&bad, buf, sizeof buf), -EINVAL);
	bad = dm;
	bad.tx_timestamp_f.nanoseconds = 1000000000;
	EXPECT_EQ(pktstats_dm_build(&bad, buf, sizeof buf), -EINVAL);
	bad = dm;
	bad.opcode = PKTSTATS_DM_OPCODE_1DM;
	bad.tlv_offset = 0;
	bad.rx_timestamp_b.seconds = 1; /* a 1DM has no RxTimeb */
	EXPECT_EQ(pktstats_dm_build(&bad, buf, sizeof buf), -EINVAL);
	EXPECT_EQ(pktstats_dm_build(&dm, buf, 59), -ENOSPC);
	EXPECT_EQ(pktstats_dm_build(NULL, buf, sizeof buf), -EINVAL);
	/* a big Data TLV: 50 + 3 + 1000 + 1 bytes, nothing padded */
	bad = dm;
	bad.data_tlv = NULL;
	bad.data_tlv_length = 1000;
	int len = pktstats_dm_build(&bad, buf, sizeof buf);
	EXPECT_EQ(len, -ENOSPC);
	uint8_t *big = calloc(1, 2000);
	len = pktstats_dm_build(&bad, big, 2000);
	EXPECT_EQ(len, 1054);
	EXPECT(big && big[50] == 3 && big[51] == 0x03 && big[52] == 0xe8 && big[1053] == 0);
	pktstats_dm_parse(big, (size_t)len, &dm, &error);
	EXPECT_EQ(error, PKTSTATS_OAM_OK);
	EXPECT_EQ(dm.data_tlv_length, 1000);
	free(big);
	end("dm_build: level 8, version 32, opcode 1, a wrong TLV offset, 10^9 ns, a 1DM with "
	    "RxTimeb are EINVAL; short buffers ENOSPC; a 1000-byte Data TLV");
}

static void test_headroom(void)
{
	struct pktstats_headroom_frame h;
	enum pktstats_oam_error error;
	uint8_t buf[64];
	begin();
	EXPECT_EQ(pktstats_headroom_parse(request, sizeof request, &h, &error), 0);
	EXPECT_EQ(error, PKTSTATS_OAM_OK);
	EXPECT(!memcmp(h.destination, "\x01\x80\xc2\x00\x00\x0e", 6));
	EXPECT_EQ(h.encapsulation_version, 0);
	EXPECT_EQ(h.subtype, 1);
	EXPECT_EQ(h.version, 1);
	EXPECT_EQ(h.reserved, 0);
	EXPECT_EQ(h.type, PKTSTATS_HEADROOM_REQUEST);
	EXPECT(same_time(h.t1, 0, 0) && same_time(h.t4, 0, 0));
	int len = pktstats_headroom_build(&h, buf, sizeof buf);
	EXPECT(same_bytes(buf, len, request, sizeof request));
	end("headroom: a request written by hand parses and builds back to the same 60 bytes");

	begin();
	EXPECT_EQ(pktstats_headroom_parse(response, sizeof response, &h, &error), 0);
	EXPECT_EQ(error, PKTSTATS_OAM_OK);
	EXPECT_EQ(h.type, PKTSTATS_HEADROOM_RESPONSE);
	EXPECT(same_time(h.t1, 5, 999999900));
	EXPECT(same_time(h.t2, 1000, 100));
	EXPECT(same_time(h.t3, 1000, 700));
	EXPECT(same_time(h.t4, 6, 1500));
	EXPECT_EQ(pktstats_headroom_round_trip(&h), 1000);
	len = pktstats_headroom_build(&h, buf, sizeof buf);
	EXPECT(same_bytes(buf, len, response, sizeof response));
	EXPECT_EQ(pktstats_headroom_build(&h, buf, 59), -ENOSPC);
	/* across the 2^32 s wrap: t1 2^32-1 s 999999990, t4 0 s 1010: 1020 ns; t3 - t2 1000 */
	h.t1 = (struct pktstats_wire_time){0xffffffff, 999999990};
	h.t4 = (struct pktstats_wire_time){0, 1010};
	h.t2 = (struct pktstats_wire_time){7, 0};
	h.t3 = (struct pktstats_wire_time){7, 1000};
	EXPECT_EQ(pktstats_headroom_round_trip(&h), 20);
	/* a responder that held it longer than the round trip: negative, not clamped */
	h.t3 = (struct pktstats_wire_time){7, 2000};
	EXPECT_EQ(pktstats_headroom_round_trip(&h), -980);
	end("headroom: a response by hand: t1..t4, round trip 1000 ns; across the 2^32 s wrap 20 "
	    "ns; a negative result kept");

	begin();
	for (size_t cut = 0; cut < sizeof response; cut++) {
		enum pktstats_oam_error want = cut < 14 ? PKTSTATS_OAM_NOT_OAM :
					       cut < 48 ? PKTSTATS_OAM_TRUNCATED : PKTSTATS_OAM_OK;
		pktstats_headroom_parse(response, cut, &h, &error);
		if (error != want)
			diag("response cut at %zu", cut);
		EXPECT_EQ(error, want);
	}
	end("headroom_parse: every length of a response: not OAM below 14, truncated below 48");

	begin();
	uint8_t f[sizeof response];
	static const struct {
		uint8_t b14, b15;
		enum pktstats_oam_error want;
	} cases[] = {
		{0x00, 0x12, PKTSTATS_OAM_BAD_SUBTYPE}, /* subtype 0: a CIM */
		{0x02, 0x12, PKTSTATS_OAM_BAD_SUBTYPE},
		{0x0f, 0x12, PKTSTATS_OAM_BAD_SUBTYPE},
		{0x11, 0x12, PKTSTATS_OAM_BAD_VERSION}, /* encapsulation version 1 */
		{0x01, 0x02, PKTSTATS_OAM_BAD_VERSION}, /* PDU version 0 */
		{0x01, 0x22, PKTSTATS_OAM_BAD_VERSION}, /* PDU version 2 */
		{0x01, 0x16, PKTSTATS_OAM_BAD_RESERVED},
		{0x01, 0x1a, PKTSTATS_OAM_BAD_RESERVED},
		{0x01, 0x10, PKTSTATS_OAM_BAD_TYPE},
		{0x01, 0x13, PKTSTATS_OAM_BAD_TYPE},
		{0x01, 0x11, PKTSTATS_OAM_OK},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		memcpy(f, response, sizeof f);
		f[14] = cases[i].b14;
		f[15] = cases[i].b15;
		pktstats_headroom_parse(f, sizeof f, &h, &error);
		if (error != cases[i].want)
			diag("bytes 14..15 %02x %02x", cases[i].b14, cases[i].b15);
		EXPECT_EQ(error, cases[i].want);
		/* with the header only, the same verdict except a whole frame's */
		pktstats_headroom_parse(f, 16, &h, &error);
		EXPECT_EQ(error, cases[i].want == PKTSTATS_OAM_OK ? PKTSTATS_OAM_TRUNCATED
								  : cases[i].want);
	}
	for (size_t field = 0; field < 4; field++) {
		memcpy(f, response, sizeof f);
		memcpy(f + 16 + 8 * field + 4, "\x3b\x9a\xca\x00", 4);
		pktstats_headroom_parse(f, sizeof f, &h, &error);
		EXPECT_EQ(error, PKTSTATS_OAM_BAD_TIMESTAMP);
	}
	memcpy(f, response, sizeof f);
	f[12] = 0x89;
	f[13] = 0x02;
	pktstats_headroom_parse(f, sizeof f, &h, &error);
	EXPECT_EQ(error, PKTSTATS_OAM_NOT_OAM);
	EXPECT_EQ(pktstats_headroom_parse(NULL, 60, &h, &error), -EINVAL);
	struct pktstats_headroom_frame bad = {.subtype = 16};
	EXPECT_EQ(pktstats_headroom_build(&bad, buf, sizeof buf), -EINVAL);
	bad = (struct pktstats_headroom_frame){.subtype = 1, .version = 1, .type = 4};
	EXPECT_EQ(pktstats_headroom_build(&bad, buf, sizeof buf), -EINVAL);
	bad = (struct pktstats_headroom_frame){.subtype = 1, .version = 1, .type = 1,
					       .t3 = {1, 1000000000}};
	EXPECT_EQ(pktstats_headroom_build(&bad, buf, sizeof buf), -EINVAL);
	end("headroom_parse: bad subtype, encapsulation and PDU version, reserved bits, type, "
	    "nanoseconds; build refuses fields wider than their bits");
}

static void test_errors_named(void)
{
	begin();
	static const char *const names[] = {"ok", "not_oam", "truncated", "bad_opcode",
					    "bad_version", "bad_subtype", "bad_type",
					    "bad_timestamp", "bad_reserved", "bad_tlv"};
	for (int e = 0; e <= PKTSTATS_OAM_BAD_TLV; e++) {
		EXPECT(!strcmp(pktstats_oam_error_name(e), names[e]));
		EXPECT(strlen(pktstats_oam_strerror(e)) > 0 &&
		       strcmp(pktstats_oam_strerror(e), "unknown error"));
	}
	end("oam errors: each has a short name and a sentence");
}

/* The table of seed 004 (headroom measurement proposal): 100 Gb/s, no MACsec; fixed delay
 * 32992 bits, internal processing 203776 bits, medium = round trip x rate (5 ns/m each way):
 *   500 m: round trip 5000 ns, 500000 bits: (32992 + 203776 + 500000) / 8 = 92096 bytes (92 KB)
 *   100 m: 1000 ns, 100000 bits: 336768 / 8 = 42096 bytes (42 KB)
 *    20 m:  200 ns,  20000 bits: 256768 / 8 = 32096 bytes (32 KB)
 * and 10 ns of round-trip error is 1000 bits, 125 bytes (0.125 KB). */
static void test_pfc_headroom(void)
{
	static const struct {
		int64_t round_trip_ns;
		uint64_t medium_bits, bytes;
	} table[] = {{5000, 500000, 92096}, {1000, 100000, 42096}, {200, 20000, 32096}};
	struct pktstats_pfc_headroom h;
	begin();
	for (size_t i = 0; i < 3; i++) {
		struct pktstats_pfc_headroom_params p = {
			.rate_mbps = 100000,
			.max_frame = PKTSTATS_PFC_MAX_FRAME_DEFAULT,
			.internal_bits = PKTSTATS_PFC_INTERNAL_BITS_100G,
			.round_trip_ns = table[i].round_trip_ns,
		};
		EXPECT_EQ(pktstats_pfc_headroom(&p, &h), 0);
		EXPECT_EQ(h.fixed_bits, 32992);
		EXPECT_EQ(h.internal_bits, 203776);
		EXPECT_EQ(h.medium_bits, table[i].medium_bits);
		EXPECT_EQ(h.total_bits, 32992 + 203776 + table[i].medium_bits);
		EXPECT_EQ(h.bytes, table[i].bytes);
		struct pktstats_pfc_headroom worse;
		p.round_trip_ns += 10;
		EXPECT_EQ(pktstats_pfc_headroom(&p, &worse), 0);
		EXPECT_EQ(worse.bytes - h.bytes, 125);
	}
	end("pfc_headroom: seed 004's table at 100 Gb/s: 92096, 42096, 32096 bytes; 10 ns more "
	    "round trip is 125 bytes");

	begin();
	/* 1 Gb/s, 1 ns: 1 bit; 2.5 Gb/s, 1 ns: 2.5 bits rounded up to 3; a 1518-byte maximum:
	 * 2 x 1538 x 8 + 672 = 25280 */
	struct pktstats_pfc_headroom_params p = {.rate_mbps = 1000, .max_frame = 1518,
						 .internal_bits = 0, .round_trip_ns = 1};
	EXPECT_EQ(pktstats_pfc_headroom(&p, &h), 0);
	EXPECT_EQ(h.medium_bits, 1);
	EXPECT_EQ(h.fixed_bits, 25280);
	EXPECT_EQ(h.bytes, (25281 + 7) / 8);
	p.rate_mbps = 2500;
	EXPECT_EQ(pktstats_pfc_headroom(&p, &h), 0);
	EXPECT_EQ(h.medium_bits, 3);
	p.rate_mbps = 0;
	EXPECT_EQ(pktstats_pfc_headroom(&p, &h), -EINVAL);
	p.rate_mbps = 1000;
	p.round_trip_ns = -1;
	EXPECT_EQ(pktstats_pfc_headroom(&p, &h), -ERANGE);
	EXPECT_EQ(pktstats_pfc_headroom(NULL, &h), -EINVAL);
	end("pfc_headroom: medium bits rounded up, the fixed part from the maximum frame, rate 0 "
	    "EINVAL, a negative round trip ERANGE");
}

static void test_registers_args(void)
{
	struct pktstats_oam_port_config config;
	struct pktstats_oam_port_counters counters;
	begin();
	EXPECT_EQ(pktstats_oam_port_get(NULL, 0, &config), -EINVAL);
	EXPECT_EQ(pktstats_oam_port_set(NULL, 0, &config), -EINVAL);
	EXPECT_EQ(pktstats_oam_port_counters(NULL, 0, &counters), -EINVAL);
	EXPECT_EQ(pktstats_oam_port_counters_clear(NULL, 0), -EINVAL);
	end("oam port access: NULL device is EINVAL");
}


/* The oam block's registers, through the library's mmap backend on a plain file: what the
 * library writes lands at the addresses of regmap/oam.toml, what is in the file is what it
 * reads. (The simulator's RTL has no oam block yet; test_cli_oam checks it there when it has.) */
static void test_registers_file(void)
{
	char path[] = "/tmp/test_oam.XXXXXX";
	int fd = mkstemp(path);
	uint32_t *space = NULL;
	struct pktstats_dev *dev = NULL;
	begin();
	if (fd < 0 || ftruncate(fd, PKTSTATS_REGISTER_SPACE) < 0 ||
	    (space = mmap(NULL, PKTSTATS_REGISTER_SPACE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			  0)) == MAP_FAILED) {
		diag("scratch register file: %s", strerror(errno));
		test_ok = 0;
		end("oam registers on a register file");
		return;
	}
	char device[64], error[PKTSTATS_ERROR_MAX];
	snprintf(device, sizeof device, "mmap:%s", path);
	EXPECT_EQ(pktstats_open(device, PKTSTATS_OPEN_NO_IDENTITY, &dev, error, sizeof error), 0);
#define REG(address) space[(address) / 4]
	struct pktstats_oam_port_config config, back;
	struct pktstats_oam_port_counters counters;
	/* no block: ENODEV, said */
	EXPECT_EQ(pktstats_oam_port_get(dev, 0, &config), -ENODEV);
	EXPECT(strstr(pktstats_error(dev), "no oam block") != NULL);
	REG(PKTSTATS_OAM_TYPE) = 0x4f414d20;
	config = (struct pktstats_oam_port_config){
		.dm_enable = true, .dm_responder = true, .dm_level = 5, .headroom_enable = true,
		.headroom_responder = true, .cpu_bound = true,
		.mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x42}, .byte_time = 80};
	EXPECT_EQ(pktstats_oam_port_set(dev, 2, &config), 0);
	/* control_2 at 0x5018: bits 0, 1, 6:4 = 5, 8, 9, 16 */
	EXPECT_EQ(REG(0x5018), 0x10353);
	EXPECT_EQ(REG(0x5030), 0x00000042); /* port_mac_2, low word: bytes 2..5 */
	EXPECT_EQ(REG(0x5034), 0x0200);     /* high word: bytes 0..1 */
	EXPECT_EQ(REG(0x5048), 80);         /* byte_time_2 */
	EXPECT_EQ(REG(0x5014), 0);          /* port 1 untouched */
	EXPECT_EQ(REG(0x501c), 0);
	EXPECT_EQ(pktstats_oam_port_get(dev, 2, &back), 0);
	EXPECT(back.dm_enable && back.dm_responder && back.dm_level == 5 && back.headroom_enable &&
	       back.headroom_responder && back.cpu_bound && back.byte_time == 80 &&
	       !memcmp(back.mac, config.mac, 6));
	REG(0x5018) = 0x00000020; /* only dm_level 2 */
	EXPECT_EQ(pktstats_oam_port_get(dev, 2, &back), 0);
	EXPECT(!back.dm_enable && !back.dm_responder && back.dm_level == 2 && !back.headroom_enable &&
	       !back.headroom_responder && !back.cpu_bound);
	/* refused before anything is written */
	config.dm_level = 8;
	EXPECT_EQ(pktstats_oam_port_set(dev, 1, &config), -EINVAL);
	EXPECT_EQ(REG(0x5014), 0);
	EXPECT_EQ(pktstats_oam_port_get(dev, 4, &back), -EINVAL);
	/* counters of port 3: dm_stamped_3 at 0x5118 ... headroom_malformed_3 at 0x5238, 64 bits */
	static const uint32_t bases[] = {0x100, 0x120, 0x140, 0x160, 0x180,
					 0x1a0, 0x1c0, 0x1e0, 0x200, 0x220};
	for (unsigned i = 0; i < 10; i++) {
		REG(0x5000 + bases[i] + 3 * 8) = 100 + i;
		REG(0x5000 + bases[i] + 3 * 8 + 4) = i; /* high word */
	}
	EXPECT_EQ(pktstats_oam_port_counters(dev, 3, &counters), 0);
	EXPECT_EQ(counters.dm_stamped, 100);
	EXPECT_EQ(counters.dm_answered, (UINT64_C(1) << 32) + 101);
	EXPECT_EQ(counters.dm_replies_sent, (UINT64_C(2) << 32) + 102);
	EXPECT_EQ(counters.dm_passed_up, (UINT64_C(3) << 32) + 103);
	EXPECT_EQ(counters.dm_malformed, (UINT64_C(4) << 32) + 104);
	EXPECT_EQ(counters.headroom_stamped, (UINT64_C(5) << 32) + 105);
	EXPECT_EQ(counters.headroom_answered, (UINT64_C(6) << 32) + 106);
	EXPECT_EQ(counters.headroom_replies_sent, (UINT64_C(7) << 32) + 107);
	EXPECT_EQ(counters.headroom_passed_up, (UINT64_C(8) << 32) + 108);
	EXPECT_EQ(counters.headroom_malformed, (UINT64_C(9) << 32) + 109);
	/* clear: a write to each counter's low word (the hardware clears on any write) */
	EXPECT_EQ(pktstats_oam_port_counters_clear(dev, 3), 0);
	for (unsigned i = 0; i < 10; i++)
		EXPECT_EQ(REG(0x5000 + bases[i] + 3 * 8), 0);
	EXPECT_EQ(REG(0x5000 + 0x100 + 2 * 8), 0); /* nothing of port 2's touched: it was 0 */
#undef REG
	pktstats_close(dev);
	munmap(space, PKTSTATS_REGISTER_SPACE);
	close(fd);
	unlink(path);
	end("oam registers on a register file (mmap backend): control, port MAC, byte time of one "
	    "port at their addresses, read back; counters; clear; ENODEV without the block");
}

int main(void)
{
	test_wire_time_diff();
	test_dmm();
	test_dmr_tagged();
	test_one_dm();
	test_dm_truncated();
	test_dm_malformed();
	test_dm_build_errors();
	test_headroom();
	test_errors_named();
	test_pfc_headroom();
	test_registers_args();
	test_registers_file();
	printf("1..%u\n", tests_run);
	return tests_failed ? 1 : 0;
}
