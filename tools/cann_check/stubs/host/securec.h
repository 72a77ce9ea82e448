// NOT CANN: stands in for securec.h of libboundscheck (openeuler/libboundscheck), for
// `make cann-check` only. CANN's builds download that library; its header is in none of
// CANN's header trees. The metadef and platform headers call these functions; declaring them
// is all a syntax check needs.
#ifndef MISHGRAD_CANN_CHECK_SECUREC_H
#define MISHGRAD_CANN_CHECK_SECUREC_H

#include <cstdarg>
#include <cstddef>

#ifndef EOK
#define EOK 0
#endif
using errno_t = int;

extern "C" {
errno_t memcpy_s(void* dest, size_t destMax, const void* src, size_t count);
errno_t memmove_s(void* dest, size_t destMax, const void* src, size_t count);
errno_t memset_s(void* dest, size_t destMax, int c, size_t count);
errno_t strcpy_s(char* dest, size_t destMax, const char* src);
errno_t strncpy_s(char* dest, size_t destMax, const char* src, size_t count);
errno_t strcat_s(char* dest, size_t destMax, const char* src);
errno_t strncat_s(char* dest, size_t destMax, const char* src, size_t count);
int sprintf_s(char* dest, size_t destMax, const char* format, ...);
int snprintf_s(char* dest, size_t destMax, size_t count, const char* format, ...);
int vsprintf_s(char* dest, size_t destMax, const char* format, va_list args);
int vsnprintf_s(char* dest, size_t destMax, size_t count, const char* format, va_list args);
}

#endif  // MISHGRAD_CANN_CHECK_SECUREC_H
