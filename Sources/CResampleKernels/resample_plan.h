#ifndef WEBIMAGE_RESAMPLE_PLAN_H
#define WEBIMAGE_RESAMPLE_PLAN_H

/// `wi_resample_packed_plan`'s layout: a header of `WI_PLAN_HEADER` entries (the lowest start
/// and the highest end of a window, and the end of the blocks the groups read), then
/// `WI_PLAN_GROUP` entries per group of four outputs (the block each window starts in, the
/// most blocks any of them spans, then the end of the blocks read by the groups up to this one).
#define WI_PLAN_HEADER 4
#define WI_PLAN_GROUP 8

#endif
