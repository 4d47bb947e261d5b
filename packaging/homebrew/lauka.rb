# Homebrew formula for lauka, built from the release tarball `make dist` makes.
#
#   make dist       # dist/lauka-VERSION.tar.gz and dist/lauka-VERSION.tar.gz.sha256
#   brew install --build-from-source packaging/homebrew/lauka.rb
#
# The tarball and its checksum are read from ../../dist next to this file,
# or from $HOMEBREW_LAUKA_DIST (a directory; Homebrew passes HOMEBREW_*
# variables through), e.g. when the formula is copied into a tap.  A
# published release would replace the three lines that compute url and
# sha256 with literal ones.
class Lauka < Formula
  desc "Hardware performance counters, calibrated and compared across commands"
  release = "0.1.0" # = VERSION
  version release
  license "MIT"

  dist = ENV.fetch("HOMEBREW_LAUKA_DIST", File.expand_path("../../dist", __dir__))
  tarball = "#{dist}/lauka-#{release}.tar.gz"
  url "file://#{tarball}"
  sha256 File.exist?("#{tarball}.sha256") ? File.read("#{tarball}.sha256")[/\h{64}/] : "0" * 64

  depends_on "pkg-config" => :build
  depends_on "libplist"
  depends_on "libxml2"
  depends_on "sqlite"

  def install
    system "make", "PREFIX=#{prefix}"
    system "make", "install", "PREFIX=#{prefix}"
  end

  test do
    ENV["LAUKA_DB"] = testpath/"lauka.db"
    assert_match "lauka #{version}", shell_output("#{bin}/lauka version")
    assert_match "wall_time", shell_output("#{bin}/lauka counters --backend rusage")
    system bin/"lauka", "counters"
    assert_predicate libexec/"lauka/lauka-probe", :executable?
  end
end
