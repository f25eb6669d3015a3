// zlib as the system has it (zlib1g-dev). Only the beaconrules command imports it, to read the
// gzip files of recorded scans.
#include <zlib.h>
