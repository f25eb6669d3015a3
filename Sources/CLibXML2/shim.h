#ifndef BEACONRULES_CLIBXML2_SHIM_H
#define BEACONRULES_CLIBXML2_SHIM_H

#include <libxml/xmlversion.h>
// Debian builds libxml2 with ICU, and encoding.h then includes ICU's headers, which clash with the
// ICU that Foundation brings. Nothing here needs ICU converters, so the headers must not see it.
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlmemory.h>

// `xmlFree` is a global function-pointer variable; Swift 6 refuses to touch a mutable global
// (it is not concurrency-safe), so the free goes through a function.
static inline void beaconrules_xmlFree(void *pointer) {
    xmlFree(pointer);
}

#endif
