#pragma once
#include <librsvg/rsvg.h>
#include <cairo.h>
