// The error every bad input throws: its message names the file (or the command-line option), the
// JSON path and what was expected; the command line prints it and exits 2.
//   throw exsim::InputError("scenario.json: cluster.executors: expected an integer >= 1");
#pragma once

#include <stdexcept>

namespace exsim {

class InputError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace exsim
