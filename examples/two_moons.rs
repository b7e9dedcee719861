//! Train a small MLP on the two-moons data set with gradients from `#[differentiable]`.
//!
//! ```text
//! cargo run --release --example two_moons
//! cargo run --release --example two_moons -- --hidden 32 --epochs 3000 --out moons.png
//! ```
//!
//! The data set is generated in code (seeded), the network is `2 -> hidden -> 2`
//! with ReLU and softmax cross-entropy, kept in a struct that derives
//! `Differentiable`. Its loss is a `#[differentiable]` method, whose
//! `loss_backward` returns the gradient as a value of the same struct, and
//! training is full-batch Adam from `backprop::optim` on that gradient.
//! The picture (`two_moons.png` by default) shows the decision regions with the
//! training and held-out points, and the loss curve.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::time::Instant;

use backprop::optim::Adam;
use backprop::prelude::*;
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use plotters::prelude::*;
use plotters::style::FontStyle;

/// Command-line flags.
#[derive(Parser, Debug)]
#[command(about = "Train an MLP on two moons with backprop's #[differentiable] and Adam")]
struct Args {
    /// Full-batch Adam steps.
    #[arg(long, default_value_t = 1000)]
    epochs: usize,
    /// Width of the hidden layer.
    #[arg(long, default_value_t = 32)]
    hidden: usize,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 0.02)]
    lr: f64,
    /// Seed of the data set and of the initial weights.
    #[arg(long, default_value_t = 7)]
    seed: u64,
    /// Standard deviation of the Gaussian noise added to the moons.
    #[arg(long, default_value_t = 0.15)]
    noise: f64,
    /// Where to write the picture (PNG).
    #[arg(long, default_value = "two_moons.png")]
    out: PathBuf,
}

/// The network's parameters: a model, whose gradient is a value of the
/// same type.
#[derive(Clone, Debug, Differentiable)]
struct Mlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
}

impl Mlp {
    /// He-initialised weights, zero biases.
    fn new(hidden: usize, rng: &mut Rng) -> Self {
        // He: standard deviation sqrt(2 / fan_in); the input has two features.
        let s1 = 1.0;
        let s2 = (2.0 / hidden as f64).sqrt();
        Mlp {
            w1: Array2::from_shape_simple_fn((2, hidden), || s1 * rng.normal()),
            b1: Array1::zeros(hidden),
            w2: Array2::from_shape_simple_fn((hidden, 2), || s2 * rng.normal()),
            b2: Array1::zeros(2),
        }
    }

    /// The training loss: ReLU, then softmax cross-entropy averaged over
    /// the batch. `#[differentiable]` writes `loss_backward`, which returns
    /// the value and the gradient, an `Mlp`.
    #[differentiable]
    fn loss(&self, x: &Array2<f64>, labels: &[usize]) -> f64 {
        let h = relu(&(x.dot(&self.w1) + &self.b1));
        let logits = h.dot(&self.w2) + &self.b2;
        softmax_cross_entropy(&logits, labels)
    }

    /// The predicted class of every row of `x`.
    fn predict(&self, x: &Array2<f64>) -> Vec<usize> {
        let h = (x.dot(&self.w1) + &self.b1).mapv(|v| v.max(0.0));
        let logits = h.dot(&self.w2) + &self.b2;
        logits
            .rows()
            .into_iter()
            .map(|r| usize::from(r[1] > r[0]))
            .collect()
    }

    fn accuracy(&self, x: &Array2<f64>, labels: &[usize]) -> f64 {
        let right = self
            .predict(x)
            .iter()
            .zip(labels)
            .filter(|(p, l)| p == l)
            .count();
        right as f64 / labels.len() as f64
    }
}

/// A small seeded generator (64-bit LCG), so the data set is the same everywhere.
struct Rng(u64);

impl Rng {
    /// Uniform in `[0, 1)`.
    fn uniform(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Standard normal (Box-Muller).
    fn normal(&mut self) -> f64 {
        let u = 1.0 - self.uniform();
        let v = self.uniform();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// `n` points of two interleaved half circles with Gaussian noise, as
/// scikit-learn's `make_moons`, shifted to be centred near the origin.
/// Classes alternate, so both have `n / 2` points.
fn two_moons(n: usize, noise: f64, rng: &mut Rng) -> (Array2<f64>, Vec<usize>) {
    let mut x = Array2::zeros((n, 2));
    let mut labels = Vec::with_capacity(n);
    for i in 0..n {
        let label = i % 2;
        let t = std::f64::consts::PI * rng.uniform();
        let (px, py) = if label == 0 {
            (t.cos(), t.sin())
        } else {
            (1.0 - t.cos(), 0.5 - t.sin())
        };
        x[[i, 0]] = px - 0.5 + noise * rng.normal();
        x[[i, 1]] = py - 0.25 + noise * rng.normal();
        labels.push(label);
    }
    (x, labels)
}

/// Checks `loss_backward` against central differences on a few points
/// (`gradcheck` takes the model and names a failing element by its path,
/// `w1[[0, 2]]`).
fn check_gradients(rng: &mut Rng) {
    let (x, labels) = two_moons(8, 0.1, rng);
    let m = Mlp::new(5, rng);
    gradcheck(&m, |m| m.loss_backward(&x, &labels, 1.0))
        .expect("loss_backward agrees with central differences");
}

fn main() -> Result<(), Box<dyn Error>> {
    let args = Args::parse();
    let start = Instant::now();
    let mut rng = Rng(args.seed);
    check_gradients(&mut rng);

    let (x_train, y_train) = two_moons(400, args.noise, &mut rng);
    let (x_test, y_test) = two_moons(200, args.noise, &mut rng);
    let mut mlp = Mlp::new(args.hidden, &mut rng);
    let mut adam = Adam::new(args.lr);

    let bar = ProgressBar::new(args.epochs as u64);
    bar.set_style(ProgressStyle::with_template(
        "{bar:40} {pos}/{len} epochs, loss {msg} [{elapsed_precise}]",
    )?);
    let mut losses = Vec::with_capacity(args.epochs);
    for epoch in 0..args.epochs {
        let (value, grad) = mlp.loss_backward(&x_train, &y_train, 1.0);
        adam.step(&mut mlp, &grad);
        losses.push(value);
        if epoch % 10 == 0 {
            bar.set_message(format!("{value:.4}"));
        }
        bar.inc(1);
    }
    let final_loss = mlp.loss(&x_train, &y_train);
    bar.finish_with_message(format!("{final_loss:.4}"));

    let picture = Picture {
        mlp: &mlp,
        x_train: &x_train,
        y_train: &y_train,
        x_test: &x_test,
        y_test: &y_test,
        losses: &losses,
    };
    plot(&args.out, &picture)?;
    println!(
        "{} epochs, hidden {}, lr {} in {:.2?}",
        args.epochs,
        args.hidden,
        args.lr,
        start.elapsed()
    );
    println!("final training loss: {final_loss:.4}");
    println!("wrote {}", args.out.display());
    println!("training accuracy: {:.3}", mlp.accuracy(&x_train, &y_train));
    println!("held-out accuracy: {:.3}", mlp.accuracy(&x_test, &y_test));
    Ok(())
}

/// The font for the picture's text: DejaVu Sans Mono, shipped beside the
/// example (see `assets/DejaVu-LICENSE`), so no system font library is needed.
const FONT: &[u8] = include_bytes!("assets/DejaVuSansMono.ttf");

const CLASS_COLOURS: [RGBColor; 2] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];
const REGION_COLOURS: [RGBColor; 2] = [RGBColor(198, 219, 239), RGBColor(252, 205, 200)];

/// What the picture shows.
struct Picture<'a> {
    mlp: &'a Mlp,
    x_train: &'a Array2<f64>,
    y_train: &'a [usize],
    x_test: &'a Array2<f64>,
    y_test: &'a [usize],
    losses: &'a [f64],
}

/// Writes the picture to `out` as a PNG.
fn plot(out: &Path, picture: &Picture) -> Result<(), Box<dyn Error>> {
    plotters::style::register_font("sans-serif", FontStyle::Normal, FONT)
        .map_err(|_| "the shipped font does not parse")?;
    let (width, height) = (1200, 560);
    let mut pixels = vec![0u8; width as usize * height as usize * 3];
    draw(&mut pixels, (width, height), picture)?;
    // plotters draws into an RGB buffer and the png crate encodes it, which
    // keeps the `image` crate and its decoders out of the build.
    let file = std::io::BufWriter::new(std::fs::File::create(out)?);
    let mut png = png::Encoder::new(file, width, height);
    png.set_color(png::ColorType::Rgb);
    png.set_depth(png::BitDepth::Eight);
    png.write_header()?.write_image_data(&pixels)?;
    Ok(())
}

/// Draws the decision regions with the points on the left and the loss curve
/// on the right into `pixels` (RGB, `size.0` pixels a row).
fn draw(pixels: &mut [u8], size: (u32, u32), picture: &Picture) -> Result<(), Box<dyn Error>> {
    let Picture {
        mlp,
        x_train,
        y_train,
        x_test,
        y_test,
        losses,
    } = *picture;
    let root = BitMapBackend::with_buffer(pixels, size).into_drawing_area();
    root.fill(&WHITE)?;
    let (left, right) = root.split_horizontally(600);

    let (x0, x1, y0, y1) = (-2.0, 2.5, -1.5, 1.75);
    let mut chart = ChartBuilder::on(&left)
        .caption("decision regions (o train, x held-out)", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(40)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart.configure_mesh().disable_mesh().draw()?;

    let cells = 150;
    let (dx, dy) = ((x1 - x0) / cells as f64, (y1 - y0) / cells as f64);
    let grid = Array2::from_shape_fn((cells * cells, 2), |(k, c)| {
        if c == 0 {
            x0 + (k % cells) as f64 * dx + dx / 2.0
        } else {
            y0 + (k / cells) as f64 * dy + dy / 2.0
        }
    });
    let regions = mlp.predict(&grid);
    chart.draw_series(regions.iter().enumerate().map(|(k, &class)| {
        let (cx, cy) = (grid[[k, 0]], grid[[k, 1]]);
        Rectangle::new(
            [
                (cx - dx / 2.0, cy - dy / 2.0),
                (cx + dx / 2.0, cy + dy / 2.0),
            ],
            REGION_COLOURS[class].filled(),
        )
    }))?;
    chart.draw_series(
        x_train
            .rows()
            .into_iter()
            .zip(y_train)
            .map(|(p, &c)| Circle::new((p[0], p[1]), 3, CLASS_COLOURS[c].filled())),
    )?;
    chart.draw_series(
        x_test
            .rows()
            .into_iter()
            .zip(y_test)
            .map(|(p, &c)| Cross::new((p[0], p[1]), 4, CLASS_COLOURS[c].stroke_width(2))),
    )?;

    let top = losses.iter().copied().fold(1e-3, f64::max) * 1.2;
    let bottom = losses.iter().copied().fold(top, f64::min).max(1e-6) * 0.8;
    let mut chart = ChartBuilder::on(&right)
        .caption("training loss (log scale)", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0..losses.len().max(1), (bottom..top).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("epoch")
        .y_label_formatter(&|v| format!("{v:.3}"))
        .draw()?;
    chart.draw_series(LineSeries::new(
        losses.iter().enumerate().map(|(i, &l)| (i, l)),
        CLASS_COLOURS[0].stroke_width(2),
    ))?;
    root.present()?;
    Ok(())
}
