// Pinocchio (C++) per-call times of CRBA, RNEA (nonLinearEffects: h = C q̇ + g), ABA and the
// constrained forward dynamics with J given (forwardDynamics(q, v, τ, J, γ)), on the shipped
// URDFs, timed as benches/benches/kkt.rs and trees.rs time ours: the fastest of 41 batches of
// at least 1 ms each. `crba_newq_us` is CRBA at a new q on every call, made the way ours is
// (`contour_benches::next_state`: the last bit of q[0] flipped), so that neither side can reuse
// anything from the previous call; `crba_us` is at one fixed q. `crba_world_us` is the same
// fixed-q call with `Convention::WORLD` (the default, LOCAL, is Pinocchio's faster one: ours is
// compared with that). Not run in CI; `benches/peers/pinocchio_timing.sh` builds and runs it
// against the `pin` wheel (Pinocchio 4.1) and writes benches/peers/results/pinocchio_timing.csv.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "pinocchio/algorithm/aba.hpp"
#include "pinocchio/algorithm/contact-dynamics.hpp"
#include "pinocchio/algorithm/crba.hpp"
#include "pinocchio/algorithm/joint-configuration.hpp"
#include "pinocchio/algorithm/rnea.hpp"
#include "pinocchio/parsers/urdf.hpp"

template <class F>
double time_us(F f) {
  using clk = std::chrono::steady_clock;
  long iters = 1;
  for (;;) {
    auto t = clk::now();
    for (long i = 0; i < iters; ++i) f();
    if (std::chrono::duration<double>(clk::now() - t).count() > 1e-3) break;
    iters *= 2;
  }
  double best = 1e300;
  for (int b = 0; b < 41; ++b) {
    auto t = clk::now();
    for (long i = 0; i < iters; ++i) f();
    double us = std::chrono::duration<double>(clk::now() - t).count() * 1e6 / iters;
    if (us < best) best = us;
  }
  return best;
}

int main(int argc, char** argv) {
  std::string root = argc > 1 ? argv[1] : ".";
  std::printf("robot,nv,crba_us,crba_newq_us,crba_world_us,rnea_us,aba_us,fd_with_J3_us\n");
  for (const char* name : {"arm7", "panda"}) {
    pinocchio::Model model;
    pinocchio::urdf::buildModel(root + "/crates/model/data/" + name + ".urdf", model);
    model.gravity.linear(std::string(name) == "arm7" ? Eigen::Vector3d(0, 0, 0) : Eigen::Vector3d(0, 0, -9.81));
    pinocchio::Data data(model);
    Eigen::VectorXd q = Eigen::VectorXd::Constant(model.nq, 0.3);
    Eigen::VectorXd v = Eigen::VectorXd::Constant(model.nv, 0.1);
    Eigen::VectorXd a = Eigen::VectorXd::Constant(model.nv, -0.2);
    Eigen::VectorXd tau = Eigen::VectorXd::Constant(model.nv, 0.5);
    double sink = 0;
    double crba = time_us([&] { pinocchio::crba(model, data, q); sink += data.M(0, 0); });
    Eigen::VectorXd q1 = q;
    double crba_newq = time_us([&] {
      std::uint64_t b;
      std::memcpy(&b, &q1[0], 8);
      b ^= 1;
      std::memcpy(&q1[0], &b, 8);
      pinocchio::crba(model, data, q1);
      sink += data.M(0, 0);
    });
    double crba_world = time_us([&] {
      pinocchio::crba(model, data, q, pinocchio::Convention::WORLD);
      sink += data.M(0, 0);
    });
    double rnea = time_us([&] { pinocchio::nonLinearEffects(model, data, q, v); sink += data.nle[0]; });
    double aba = time_us([&] { pinocchio::aba(model, data, q, v, tau); sink += data.ddq[0]; });
    // a 3-row constraint (like the arm's tip held in place), J and γ given
    Eigen::MatrixXd J = Eigen::MatrixXd::Random(3, model.nv);
    Eigen::VectorXd gamma = Eigen::VectorXd::Random(3);
    double fd = time_us([&] {
      pinocchio::crba(model, data, q);
      pinocchio::nonLinearEffects(model, data, q, v);
      pinocchio::forwardDynamics(model, data, tau, J, gamma, 0.0);
      sink += data.ddq[0];
    });
    std::printf("%s,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", name, (int)model.nv, crba, crba_newq, crba_world, rnea, aba, fd);
    if (sink == 12345.678) std::printf("%f\n", sink);
  }
  return 0;
}
