# Homebrew formula for lauka: the release tarball `make dist` writes, built with make.
#
# The url and sha256 lines are written by `make brew-formula` from the tag v$(VERSION) (HACKING.md,
# "Releasing"); until v0.1.0 is tagged the checksum is zeros, as nothing is released. Once the tag
# exists, tests/cli/t-install.sh checks the checksum against the tarball `make dist` makes of it; it
# always checks the formula against the rules `brew audit --strict` applies and runs its install and
# test blocks (tests/support/brew-standin.rb; brew itself has not run: no Mac here). The address is
# a placeholder (.invalid never resolves) until the project is published.
class Lauka < Formula
  desc "Calibrated hardware performance counters, compared across commands"
  homepage "https://lauka.invalid/"
  url "https://lauka.invalid/releases/lauka-0.1.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "MIT"

  depends_on "pkgconf" => :build
  depends_on "libplist"

  uses_from_macos "libxml2"
  uses_from_macos "sqlite"

  def install
    system "make", "install", "PREFIX=#{prefix}", "BASHCOMPDIR=#{bash_completion}"
  end

  test do
    ENV["LAUKA_DB"] = "#{testpath}/lauka.db"
    assert_match "lauka #{version}", shell_output("#{bin}/lauka version")
    assert_match "wall_time", shell_output("#{bin}/lauka counters --backend rusage")
    probe = libexec/"lauka/lauka-probe"
    assert_match "alu 1000000 iterations", shell_output("#{probe} alu 1e6")
    assert_match(/^wall_time /, shell_output("#{bin}/lauka record --backend rusage -- '#{probe} alu 1e6'"))
  end
end
