//! A small wgpu application that records a wgpu API trace: the source of the trace fixture of
//! `wgsimd replay` (tests/fixtures/replay/reduce_scan in the repository root).
//!
//! ```text
//! cargo run -p wgsimd-lab --bin trace_app -- DIR
//! ```
//!
//! It opens its device with `wgpu::Trace::Directory(DIR)` (wgpu's `trace` feature, enabled for
//! the lab only) and uses plain wgpu, nothing of wgsimd: two shader modules
//! (`lab/trace_app/reduce.wgsl` and `scan.wgsl`, given to wgpu as WGSL text), per-workgroup
//! sums of 1000 numbers into a buffer bound in `@group(1)` with a dynamic offset, with pipeline
//! constants (`WG` = 128, `SCALE` = 2), then one invocation's exclusive scan of the sums
//! dispatched indirectly from arguments written at byte 16 of a buffer. The input is made with
//! contents (`create_buffer_init`), the parameters and dispatch arguments by
//! `Queue::write_buffer`, the output is cleared by the encoder before the scan. The reduction
//! has a subgroup-size bug (its butterfly's masks are written for 32 lanes), so the replay
//! finds it below 32 lanes and not at 32. It prints what the GPU computed. The trace is
//! complete (`]` written) when the device is dropped, at the end of `main`.
//!
//! Needs an adapter with subgroup operations (lavapipe has them).

use std::path::PathBuf;

use wgpu::util::DeviceExt;

const N: u32 = 1000;
const WG: u32 = 128;

fn main() {
    let dir = PathBuf::from(std::env::args().nth(1).expect("usage: trace_app DIR"));
    std::fs::create_dir_all(&dir).expect("trace folder");
    let instance =
        wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
    let adapter =
        pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
            .expect("an adapter");
    eprintln!("adapter: {:?}", adapter.get_info());
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("trace_app"),
        required_features: wgpu::Features::SUBGROUP,
        required_limits: wgpu::Limits::default(),
        experimental_features: wgpu::ExperimentalFeatures::disabled(),
        memory_hints: wgpu::MemoryHints::default(),
        trace: wgpu::Trace::Directory(dir.clone()),
    }))
    .expect("a device with subgroup operations");

    let module = |label: &str, source: &str| {
        device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        })
    };
    let reduce = module("reduce", include_str!("../../trace_app/reduce.wgsl"));
    let scan = module("scan", include_str!("../../trace_app/scan.wgsl"));

    let groups = N.div_ceil(WG);
    let input: Vec<u32> = (0..N).collect();
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("input"),
        contents: bytemuck::cast_slice(&input),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let params = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("params"),
        size: 16,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&params, 0, bytemuck::cast_slice(&[N, groups, 0, 0]));
    // the sums live at byte 256 of a larger buffer (the reduction binds it with a dynamic offset)
    let partials = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("partials"),
        size: 512,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let offsets = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("offsets"),
        size: 4 * (groups as u64 + 1),
        usage: wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let args = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("args"),
        size: 32,
        usage: wgpu::BufferUsages::INDIRECT | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    queue.write_buffer(&args, 16, bytemuck::cast_slice(&[1u32, 1, 1, 0]));
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: 4 * (2 * groups as u64 + 1),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });

    // the reduction: explicit layouts, group 1 with a dynamic offset
    let storage = |read_only, dynamic| wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Storage { read_only },
        has_dynamic_offset: dynamic,
        min_binding_size: None,
    };
    let entry = |binding, ty| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty,
        count: None,
    };
    let layout0 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("reduce group 0"),
        entries: &[
            entry(0, storage(true, false)),
            entry(
                1,
                wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
            ),
        ],
    });
    let layout1 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("reduce group 1"),
        entries: &[entry(0, storage(false, true))],
    });
    let reduce_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("reduce"),
        bind_group_layouts: &[Some(&layout0), Some(&layout1)],
        immediate_size: 0,
    });
    let reduce_pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("partial sums"),
        layout: Some(&reduce_layout),
        module: &reduce,
        entry_point: Some("partial"),
        compilation_options: wgpu::PipelineCompilationOptions {
            constants: &[("WG", WG as f64), ("SCALE", 2.0)],
            ..Default::default()
        },
        cache: None,
    });
    fn whole(buffer: &wgpu::Buffer) -> wgpu::BindingResource<'_> {
        wgpu::BindingResource::Buffer(buffer.as_entire_buffer_binding())
    }
    let reduce0 = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("reduce inputs"),
        layout: &layout0,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: whole(&input),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: whole(&params),
            },
        ],
    });
    let reduce1 = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("reduce outputs"),
        layout: &layout1,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: &partials,
                offset: 0,
                size: std::num::NonZeroU64::new(256),
            }),
        }],
    });

    // the scan: layouts derived from the shader
    let scan_pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("scan"),
        layout: None,
        module: &scan,
        entry_point: None,
        compilation_options: Default::default(),
        cache: None,
    });
    let scan0 = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("scan params"),
        layout: &scan_pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 1,
            resource: whole(&params),
        }],
    });
    let scan1 = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("scan buffers"),
        layout: &scan_pipeline.get_bind_group_layout(1),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: &partials,
                    offset: 256,
                    size: std::num::NonZeroU64::new(4 * groups as u64),
                }),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: whole(&offsets),
            },
        ],
    });

    // submission 1: the reduction
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("reduce"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&reduce_pipeline);
        pass.set_bind_group(0, &reduce0, &[]);
        pass.set_bind_group(1, &reduce1, &[256]);
        pass.dispatch_workgroups(groups, 1, 1);
    }
    queue.submit([enc.finish()]);

    // submission 2: clear, the scan (indirect), read back
    let mut enc = device.create_command_encoder(&Default::default());
    enc.clear_buffer(&offsets, 0, None);
    {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("scan"),
            timestamp_writes: None,
        });
        pass.set_pipeline(&scan_pipeline);
        pass.set_bind_group(0, &scan0, &[]);
        pass.set_bind_group(1, &scan1, &[]);
        pass.dispatch_workgroups_indirect(&args, 16);
    }
    enc.copy_buffer_to_buffer(&partials, 256, &readback, 0, 4 * groups as u64);
    enc.copy_buffer_to_buffer(
        &offsets,
        0,
        &readback,
        4 * groups as u64,
        4 * (groups as u64 + 1),
    );
    queue.submit([enc.finish()]);

    readback
        .slice(..)
        .map_async(wgpu::MapMode::Read, |r| r.expect("map"));
    device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    let words: Vec<u32> = {
        let view = readback.slice(..).get_mapped_range().expect("mapped");
        bytemuck::cast_slice(&view).to_vec()
    };
    readback.unmap();
    let (sums, scanned) = words.split_at(groups as usize);
    println!("partials: {sums:?}");
    println!("offsets:  {scanned:?}");
}
