// SPDX-License-Identifier: BSD-3-Clause
//
// TruthFile: one of the CSV files in which pktstats-sim writes what it knows to be true
// (--wire-truth, --sojourn-truth; docs/simulator.md): created with its header line, fully
// buffered (a line per frame), closed with its write errors reported, so that a test never
// reads a truncated truth as if it were whole.

#ifndef PKTSTATS_SIM_TRUTH_FILE_H
#define PKTSTATS_SIM_TRUTH_FILE_H

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

namespace pktstats_sim {

class TruthFile {
public:
	// Creates PATH and writes `header` (with its line end). Throws std::runtime_error when it
	// cannot.
	TruthFile(const std::string &path, const char *header) : path_(path)
	{
		file_ = fopen(path.c_str(), "w");
		if (!file_)
			throw std::runtime_error(path + ": " + strerror(errno));
		setvbuf(file_, nullptr, _IOFBF, 1 << 20);
		fputs(header, file_);
	}
	~TruthFile()
	{
		if (file_)
			fclose(file_);
	}
	TruthFile(const TruthFile &) = delete;
	TruthFile &operator=(const TruthFile &) = delete;

	FILE *file() const { return file_; }
	const std::string &path() const { return path_; }

	// False (and the reason on stderr, after `program`) when the file could not be written
	// whole.
	bool close(const char *program)
	{
		int status = fclose(file_);
		file_ = nullptr;
		if (status != 0)
			fprintf(stderr, "%s: %s: %s\n", program, path_.c_str(), strerror(errno));
		return status == 0;
	}

private:
	std::string path_;
	FILE *file_ = nullptr;
};

} // namespace pktstats_sim

#endif
