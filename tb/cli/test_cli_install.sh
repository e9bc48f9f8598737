#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# `make install` into a scratch DESTDIR: tb/cli/test_cli_install.sh (from the repository root).
# Checks the installed files, that pkg-config finds libpktstats, that a program using every
# installed header (collector resolution included) builds against the installed headers and
# library alone with `pkg-config --static` flags (no source tree on the include path, no libnl
# flags of its own) and runs, that the installed pktstats runs, and that the manual page is
# clean under groff -ww and renders with man -l; that the exporter's service installs whole
# (its unit checked by systemd-analyze, its rules by promtool, the site's configuration kept
# across installs). Prints TAP.

root=$(pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/pktstats-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=/opt/pktstats-test
dest=$work/dest
n=0
failed=0
check() { # check NAME COMMAND...
	name=$1
	shift
	n=$((n + 1))
	if "$@" >"$work/check.out" 2>&1; then
		echo "ok $n - $name"
	else
		echo "not ok $n - $name"
		sed 's/^/# /' "$work/check.out" | head -20
		failed=$((failed + 1))
	fi
}

check "make install PREFIX=$prefix DESTDIR=..." \
	make --no-print-directory -C "$root" install PREFIX=$prefix DESTDIR="$dest"
p=$dest$prefix
for f in bin/pktstats bin/pktstats-exporter lib/libpktstats.a lib/pkgconfig/libpktstats.pc \
	share/man/man8/pktstats.8 share/man/man8/pktstats-exporter.8 \
	lib/systemd/system/pktstats-exporter.service share/pktstats/prometheus/pktstats-alerts.yml \
	etc/pktstats/exporter.conf; do
	check "installed $f" test -s "$p/$f"
done
# every header of the library's include directory (a program of the docs includes sojourn.h,
# flowlat.h or mac.h: each was missing once)
headers=$(cd "$root/sw/driver/include" && ls pktstats/*.h)
for h in $headers; do
	check "installed include/$h" test -s "$p/include/$h"
done
check "bin/pktstats is executable" test -x "$p/bin/pktstats"
check "installed pktstats --help runs" "$p/bin/pktstats" --help
check "installed pktstats-exporter --version runs" "$p/bin/pktstats-exporter" --version

# The exporter's service: its configuration from the example is one it takes, an edited one
# survives a second install, the unit passes systemd's own check (with the installed
# exporter's path, where DESTDIR put it) and names the installed configuration, and the
# alerting rules pass promtool's.
check "the installed exporter.conf is a valid configuration (--check)" \
	"$p/bin/pktstats-exporter" --check config "$p/etc/pktstats/exporter.conf"
echo "# edited by the site" >>"$p/etc/pktstats/exporter.conf"
check "a second make install" \
	make --no-print-directory -C "$root" install PREFIX=$prefix DESTDIR="$dest"
check "it kept the site's exporter.conf" grep -q "edited by the site" "$p/etc/pktstats/exporter.conf"
check "the unit runs $prefix/bin/pktstats-exporter with $prefix/etc/pktstats/exporter.conf" \
	grep -q "^ExecStart=$prefix/bin/pktstats-exporter config $prefix/etc/pktstats/exporter.conf\$" \
	"$p/lib/systemd/system/pktstats-exporter.service"
if command -v systemd-analyze >/dev/null; then
	sed "s|$prefix|$p|g" "$p/lib/systemd/system/pktstats-exporter.service" \
		>"$work/pktstats-exporter.service"
	check "systemd-analyze verify: the unit is clean" \
		sh -c "systemd-analyze verify --man=no '$work/pktstats-exporter.service' 2>&1 | { ! grep .; }"
else
	n=$((n + 1)) && echo "ok $n - systemd-analyze verify # SKIP systemd is not installed"
fi
if command -v promtool >/dev/null; then
	check "promtool check rules: the alerting rules are valid" \
		promtool check rules "$p/share/pktstats/prometheus/pktstats-alerts.yml"
else
	n=$((n + 1)) && echo "ok $n - promtool check rules # SKIP prometheus is not installed"
fi

# pkg-config, with the prefix moved to where DESTDIR put it.
export PKG_CONFIG_PATH="$p/lib/pkgconfig"
check "pkg-config knows libpktstats" pkg-config --exists libpktstats
check "pkg-config --variable=prefix is the PREFIX" \
	test "$(pkg-config --variable=prefix libpktstats)" = "$prefix"
cflags=$(pkg-config --define-variable=prefix="$p" --cflags libpktstats)
# The library is static: --static adds what it needs itself (libnl-route-3, Requires.private).
libs=$(pkg-config --define-variable=prefix="$p" --static --libs libpktstats)

# Every installed header in one program, built with pkg-config's flags alone: the headers
# must agree with each other (no macro defined twice with different values), and the collector
# resolution cli.md points library users to links (it needs libnl-route-3).
for h in $headers; do echo "#include <$h>"; done >"$work/client.c"
cat >>"$work/client.c" <<'PROGRAM'
#include <errno.h>
#include <stdio.h>
int main(void)
{
	struct pktstats_capture_config config;
	struct pktstats_packet packet;
	enum pktstats_decode_error reason;
	struct pktstats_collector_path path;
	char error[128];
	pktstats_capture_defaults(&config);
	int err = pktstats_decode_payload((const unsigned char *)"", 0, &packet, NULL, 0, NULL,
					  &reason);
	/* not an IPv4 address: refused before any netlink request */
	int resolved = pktstats_collector_resolve("10.0.0.256", NULL, 0, &path, error,
						  sizeof error);
	struct pktstats_sojourn_matcher *matcher = NULL;
	int created = pktstats_sojourn_create(&matcher, NULL);
	pktstats_sojourn_destroy(matcher);
	printf("%u %s %d %s %d %s %s\n", config.max_length, pktstats_regs[0].name, err,
	       pktstats_decode_error_name(reason), resolved, error,
	       pktstats_flowlat_kind_name(PKTSTATS_FLOWLAT_HIGH));
	int ok = config.max_length == PKTSTATS_MAX_LENGTH_DEFAULT && err < 0 && resolved == -EINVAL &&
		 created == 0;
	return ok ? 0 : 1;
}
PROGRAM
check "a program with every header builds with pkg-config's flags alone" \
	cc -std=c11 -Wall -Wextra -Werror $cflags "$work/client.c" $libs -o "$work/client"
check "it runs" "$work/client"

# The manual page.
check "pktstats.8: groff -man -ww gives no warning" \
	sh -c "LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z '$p/share/man/man8/pktstats.8' 2>&1 | { ! grep .; }"
check "pktstats.8 renders with man -l" \
	sh -c "MANWIDTH=80 man -l '$p/share/man/man8/pktstats.8' 2>/dev/null | grep -q 'capture set'"
check "pktstats-exporter.8: groff -man -ww gives no warning" \
	sh -c "LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z '$p/share/man/man8/pktstats-exporter.8' 2>&1 | { ! grep .; }"
check "pktstats-exporter.8 renders with man -l" \
	sh -c "MANWIDTH=80 man -l '$p/share/man/man8/pktstats-exporter.8' 2>/dev/null | grep -q 'dm-two-way'"

echo "1..$n"
[ $failed -eq 0 ]
