// include-only
// The device's clock, for kernels that measure time (WGSL has none). `device_clock()` stands in
// for it: a pipeline built with the override DEVICE_CLOCK set has every call replaced by the
// device's clock read (Vulkan's shader clock at device scope, low word first; src/gpu/clock.rs);
// as WGSL it returns a value no clock gives. Only code under `if DEVICE_CLOCK` may call it: a
// device or simulator without the clock refuses such a pipeline, so the stand-in never runs.

override DEVICE_CLOCK: bool = false;

fn device_clock() -> vec2<u32> {
    return vec2<u32>(0xffffffffu, 0xffffffffu);
}
