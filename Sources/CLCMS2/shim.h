#pragma once
#include <lcms2.h>

// LittleCMS's pixel formats are function-like macros, which Swift does not import.
static const cmsUInt32Number CLCMS2_TYPE_RGBA_8 = TYPE_RGBA_8;
static const cmsUInt32Number CLCMS2_TYPE_RGB_8 = TYPE_RGB_8;
static const cmsUInt32Number CLCMS2_TYPE_GRAY_8 = TYPE_GRAY_8;
static const cmsUInt32Number CLCMS2_TYPE_CMYK_8 = TYPE_CMYK_8;
static const cmsUInt32Number CLCMS2_TYPE_CMYK_8_REV = TYPE_CMYK_8_REV;
