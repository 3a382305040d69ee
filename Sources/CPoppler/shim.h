#pragma once
#include <poppler.h>
#include <cairo.h>
